import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { anthropicText } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { openaiText } from '../adapters/support/openai-wire.ts'
import { RUN_TIMEOUT_MS, runExample } from './support/run-example.ts'

// The adapter examples run as a user runs them, with the provider's real SDK client; the SDKs' own
// base-URL variables point them at a loopback server that answers badly once, then well.
const invalid = JSON.stringify({ orderId: '42', action: 'refund', amount: 'USD 50', reason: 'duplicate charge' })
const valid = JSON.stringify({ orderId: '42', action: 'refund', amount: 50, reason: 'duplicate charge' })

/** An OpenAI Responses API reply (the AI SDK's OpenAI provider speaks it by default). */
function responsesText(text: string): Reply {
  return {
    kind: 'json',
    body: {
      id: 'resp_1',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'gpt-test',
      output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
      usage: {
        input_tokens: 20,
        output_tokens: 10,
        total_tokens: 30,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    },
  }
}

const examples = [
  { file: 'openai.ts', key: 'OPENAI_API_KEY', baseUrl: (url: string) => ({ OPENAI_BASE_URL: `${url}/v1` }), reply: openaiText },
  { file: 'anthropic.ts', key: 'ANTHROPIC_API_KEY', baseUrl: (url: string) => ({ ANTHROPIC_BASE_URL: url }), reply: anthropicText },
  { file: 'ai-sdk.ts', key: 'OPENAI_API_KEY', baseUrl: (url: string) => ({ OPENAI_BASE_URL: `${url}/v1` }), reply: responsesText },
] as const

describe.each(examples)('examples/$file', ({ file, key, baseUrl, reply }) => {
  let server: LoopbackServer
  beforeEach(async () => {
    server = await startLoopback()
  })
  afterEach(async () => {
    await server.close()
  })

  it('says in one line which key it needs, sends nothing and exits 0 without one', async () => {
    const run = await runExample(file, { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, ...baseUrl(server.url) })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.trim().split('\n')).toEqual([expect.stringContaining(`set ${key}`)])
    expect(server.requests).toHaveLength(0)
  })

  it('retries an invalid answer with feedback through the real SDK client and prints the valid one', { timeout: RUN_TIMEOUT_MS + 5_000 }, async () => {
    server.script([reply(invalid), reply(valid)])
    const run = await runExample(file, { [key]: 'test-key', ...baseUrl(server.url) })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^attempt 1 rejected: .*'amount'/m)
    expect(run.stdout).toMatch(/refund decision: \{[^}]*amount: 50/)
    expect(server.requests).toHaveLength(2)
    expect(JSON.stringify(server.requests[1]?.body)).toContain("'amount': expected number")
  })

  it('ends with the typed failure in one line and exit code 1 when the model repeats its mistake', { timeout: RUN_TIMEOUT_MS + 5_000 }, async () => {
    server.script([reply(invalid), reply(invalid), reply(invalid)])
    const run = await runExample(file, { [key]: 'test-key', ...baseUrl(server.url) })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^no valid answer: schema-stuck-loop after 2 attempt\(s\): /m)
    expect(server.requests).toHaveLength(2)
  })
})
