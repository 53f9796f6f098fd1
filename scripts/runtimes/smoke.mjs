// The runtime smoke test: one strict-output retry through the BUILT package (dist/), on the scripted
// provider and on the OpenAI adapter with the real `openai` client over `fetch` (a fetch function
// that answers locally: nothing leaves the process). Plain JavaScript without `node:` imports, so
// Node, Bun, Deno and workerd run it as it is. Run by scripts/test-runtimes.mjs.
import OpenAI from 'openai'
import { createGate, strictOutputRules } from '../../dist/index.js'
import { openai } from '../../dist/openai/index.js'
import { scripted } from '../../dist/providers/index.js'

const Refund = {
  type: 'object',
  properties: { orderId: { type: 'string' }, action: { enum: ['refund', 'reject'] }, amount: { type: 'number' } },
  required: ['orderId', 'action', 'amount'],
  additionalProperties: false,
}
const invalid = JSON.stringify({ orderId: '42', action: 'refund', amount: 'USD 50' })
const valid = JSON.stringify({ orderId: '42', action: 'refund', amount: 50 })
const ask = { messages: [{ role: 'user', content: 'refund order #42 for $50' }] }

function check(condition, what) {
  if (!condition) throw new Error(`runtime smoke: ${what}`)
}

/** The name and version of the JavaScript runtime running this. */
export function runtime() {
  if (globalThis.Bun !== undefined) return `bun ${globalThis.Bun.version}`
  if (globalThis.Deno !== undefined) return `deno ${globalThis.Deno.version.deno}`
  if (globalThis.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd'
  return `node ${globalThis.process.versions.node}`
}

/** Invalid answer -> feedback -> valid answer, on `provider`; returns the feedback the retry carried. */
async function strictOutputRetry(provider) {
  const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
  const result = await gate.run(ask)
  check(JSON.stringify(result.value) === valid, `expected the valid answer, got ${JSON.stringify(result.value)}`)
  check(result.attempts.length === 2, `expected 2 attempts, got ${result.attempts.length}`)
  return result
}

/** A Chat Completions answer, as the OpenAI API sends it. */
const completion = (content) => ({
  id: 'chatcmpl-smoke',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-smoke',
  choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content, refusal: null } }],
  usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
})

/** Runs both retries; throws on the first thing that is not as expected. Returns a one-line report. */
export async function smoke() {
  const provider = scripted([invalid, valid])
  await strictOutputRetry(provider)
  const tail = provider.requests[1]?.messages.slice(ask.messages.length) ?? []
  check(tail.length === 2 && tail.every((m) => m.ephemeral === true), 'the retry carries an ephemeral tail of two messages')
  check(tail[1].content.includes("'amount'"), `the feedback names the failing field: ${tail[1].content}`)

  const bodies = []
  const replies = [invalid, valid]
  const fetchLocally = async (_url, init) => {
    bodies.push(JSON.parse(init.body))
    const body = JSON.stringify(completion(replies[bodies.length - 1]))
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })
  }
  const client = new OpenAI({ apiKey: 'smoke', baseURL: 'https://smoke.invalid/v1', fetch: fetchLocally, maxRetries: 0 })
  await strictOutputRetry(openai({ client, model: 'gpt-smoke' }))
  check(bodies.length === 2, `expected 2 Chat Completions requests, got ${bodies.length}`)
  check(JSON.stringify(bodies[1].messages).includes("'amount'"), 'the second request carries the feedback')
  check(!JSON.stringify(bodies).includes('ephemeral'), 'nothing gate-only goes on the wire')
  return `${runtime()}: strict-output retry on the scripted provider and on the OpenAI adapter over fetch (2 attempts each)`
}
