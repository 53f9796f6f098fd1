import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, type GateResult, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { startLoopback, type LoopbackServer } from '../adapters/support/loopback-server.ts'

let server: LoopbackServer
const messages = [{ role: 'user' as const, content: 'x'.repeat(400) }]
const answer = 'y'.repeat(80)

beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

/**
 * Usage objects as JSON text (so `1e400` reaches the SDK as the Infinity it parses to), in each
 * vendor's field names: `in` and `out` are replaced by the input and output count fields.
 */
const HOSTILE_USAGE: readonly [name: string, json: string][] = [
  ['counts as strings', '{"in": "100", "out": "20"}'],
  ['negative counts', '{"in": -5, "out": -1}'],
  ['counts too large for a double (parsed as Infinity)', '{"in": 1e400, "out": 1e400}'],
  ['null counts', '{"in": null, "out": null}'],
  ['counts as objects', '{"in": {"n": 1}, "out": [20]}'],
  ['counts as booleans', '{"in": true, "out": false}'],
  ['usage as a string', '"lots"'],
  ['usage as an array', '[100, 20]'],
  ['usage as a number', '42'],
  ['an empty usage', '{}'],
  ['only a hostile output count', '{"in": 100, "out": "NaN"}'],
]

const vendors: readonly { name: string; provider: () => Provider; body: (usage: string) => string }[] = [
  {
    name: 'openai',
    provider: () => openai({ client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0, timeout: 5_000 }), model: 'm-1' }),
    body: (usage) =>
      `{"id":"c","object":"chat.completion","created":1,"model":"m-1","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"${answer}"}}],"usage":${usage.replace('"in"', '"prompt_tokens"').replace('"out"', '"completion_tokens"')}}`,
  },
  {
    name: 'anthropic',
    provider: () => anthropic({ client: new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0, timeout: 5_000 }), model: 'm-1' }),
    body: (usage) =>
      `{"id":"m","type":"message","role":"assistant","model":"m-1","content":[{"type":"text","text":"${answer}"}],"stop_reason":"end_turn","stop_sequence":null,"usage":${usage.replace('"in"', '"input_tokens"').replace('"out"', '"output_tokens"')}}`,
  },
  {
    name: 'ai-sdk',
    provider: () => aiSdk(createGateway({ baseURL: server.url, apiKey: 'k' })('m-1')),
    body: (usage) =>
      `{"content":[{"type":"text","text":"${answer}"}],"finishReason":{"unified":"stop","raw":"stop"},"warnings":[],"usage":${usage.replace('"in"', '"inputTokens"').replace('"out"', '"outputTokens"')}}`,
  },
]

const cases = vendors.flatMap((v) => HOSTILE_USAGE.map(([name, json]) => [v.name, name, v, json] as const))

describe('hostile providers: usage of the wrong shape', () => {
  it.each(cases)('%s answering %s: the usage is estimated, finite and priced, within 2 s', async (_vendor, _name, vendor, json) => {
    server.script([{ kind: 'raw', status: 200, contentType: 'application/json', body: vendor.body(json) }])
    const gate = createGate({ providers: vendor.provider(), model: 'm-1', pricing: { 'm-1': { input: 1, output: 1 } } })
    const outcome = await Promise.race([gate.run({ messages }), new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), 2_000))])
    expect(outcome).not.toBe('hang')
    const { usage, costUsd, response } = outcome as GateResult<unknown>
    expect(response.content).toBe(answer)
    expect(usage.estimated).toBe(true)
    for (const count of [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens ?? 0, usage.cacheWriteTokens ?? 0]) {
      expect(Number.isFinite(count) && count >= 0).toBe(true)
    }
    // Never silently free: at least the estimate of what was answered is billed.
    expect(usage.outputTokens).toBeGreaterThanOrEqual(20)
    expect(Number.isFinite(costUsd) && costUsd > 0).toBe(true)
  })
})
