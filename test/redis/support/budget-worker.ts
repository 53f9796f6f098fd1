// One process of the shared-budget race, run by shared-budget-fleet.test.ts with
// `node budget-worker.ts <port> <spenders> <seed>`. Its spenders call one gate over and over, all
// charging one shared budget in Redis, until the budget refuses them; it prints one JSON line with
// what its provider really billed.
import { Redis } from 'ioredis'
import { createGate, isReliabilityFailFastError, sharedBudget, type Provider } from '../../../src/index.ts'
import { redisStore } from '../../../src/store/redis/index.ts'

const [port, spenders, seed] = process.argv.slice(2).map(Number) as [number, number, number]
const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 500, lazyConnect: true })
await client.connect()

// $1 per million input tokens, $4 per million output tokens.
const pricing = { m: { input: 1, output: 4 } }
const budget = sharedBudget({ store: redisStore(client, { keyPrefix: 'fleet-budget:' }), key: 'budget', usd: 1 })

let state = seed >>> 0 || 1
const random = (): number => {
  state = (state * 48271) % 2147483647
  return state / 2147483647
}

let calls = 0
let billedUsd = 0
// An honest provider: it bills at most a token per 4 characters sent and at most maxTokens out.
const provider: Provider = {
  name: 'llm',
  complete: (request) =>
    new Promise((resolve) => {
      calls++
      const chars = request.messages.reduce((n, m) => n + m.content.length, 0)
      const usage = { inputTokens: Math.ceil((chars / 4) * (0.8 + random() * 0.2)), outputTokens: 1 + Math.floor(random() * (request.maxTokens ?? 1)) }
      billedUsd += (usage.inputTokens * 1 + usage.outputTokens * 4) / 1e6
      setTimeout(() => resolve({ content: 'ok', toolCalls: [], usage, stopReason: 'end' }), 1 + random() * 9)
    }),
}
const gate = createGate({ providers: provider, model: 'm', pricing, budget })

const refusals: Record<string, number> = {}
async function spender(i: number): Promise<void> {
  for (;;) {
    try {
      await gate.run({ messages: [{ role: 'user', content: `spender ${seed}-${i}: ${'x'.repeat(2000)}` }], maxTokens: 200 })
    } catch (error) {
      const kind = isReliabilityFailFastError(error) ? error.kind : 'thrown'
      refusals[kind] = (refusals[kind] ?? 0) + 1
      return
    }
  }
}

try {
  await Promise.all(Array.from({ length: spenders }, (_, i) => spender(i)))
} finally {
  client.disconnect()
}
process.stdout.write(`${JSON.stringify({ calls, billedUsd, refusals })}\n`)
