// One process of the shared-budget race through a Sentinel failover, run by sentinel-failover.test.ts
// with `node failover-worker.ts <sentinel ports, comma-separated> <spenders> <seed> <durable 0|1>`.
// Its spenders charge one shared budget until it refuses them; a store failure (the master is gone,
// a replica did not confirm) fails that run and the spender tries again. It prints one JSON line: what
// its provider billed, and every reservation and charge the store acknowledged, with its time.
import type { StateStore } from '../../../src/index.ts'
import { createGate, isReliabilityFailFastError, sharedBudget, type Provider } from '../../../src/index.ts'
import { redisStore } from '../../../src/store/redis/index.ts'
import { DURABLE } from './failover-races.ts'
import { connectSentinelClient } from './redis-sentinel.ts'

const [ports, spenders, seed, durable] = process.argv.slice(2) as [string, string, string, string]
const client = await connectSentinelClient({ sentinelPorts: ports.split(',').map(Number) })

// $1 per million input tokens, $4 per million output tokens.
const pricing = { m: { input: 1, output: 4 } }
const base = redisStore(client, { keyPrefix: 'failover-budget:', ...(durable === '1' ? { durable: DURABLE } : {}) })

/** [what, when (ms since the epoch), usd]: every reservation granted and every charge acknowledged. */
const acked: ['reserve' | 'settle', number, number][] = []
let unsettledUsd = 0
const store: StateStore = {
  ...base,
  async reserve(key, id, amount, limit, ttlMs) {
    const r = await base.reserve(key, id, amount, limit, ttlMs)
    if (r.granted) acked.push(['reserve', Date.now(), amount])
    return r
  },
  async settle(key, id, amount, ttlMs) {
    try {
      const total = await base.settle(key, id, amount, ttlMs)
      acked.push(['settle', Date.now(), amount])
      return total
    } catch (error) {
      unsettledUsd += amount
      throw error
    }
  },
}
// A reservation lives about as long as an attempt: one a failed write left behind frees its money soon.
const budget = sharedBudget({ store, key: 'budget', usd: 2, reservationTtlMs: 2_000 })

let state = Number(seed) >>> 0 || 1
const random = (): number => {
  state = (state * 48271) % 2147483647
  return state / 2147483647
}

let calls = 0
let billedUsd = 0
const provider: Provider = {
  name: 'llm',
  complete: (request) =>
    new Promise((resolve) => {
      calls++
      const chars = request.messages.reduce((n, m) => n + m.content.length, 0)
      const usage = { inputTokens: Math.ceil((chars / 4) * (0.8 + random() * 0.2)), outputTokens: 1 + Math.floor(random() * (request.maxTokens ?? 1)) }
      billedUsd += (usage.inputTokens * 1 + usage.outputTokens * 4) / 1e6
      setTimeout(() => resolve({ content: 'ok', toolCalls: [], usage, stopReason: 'end' }), 10 + random() * 20)
    }),
}
const gate = createGate({ providers: provider, model: 'm', pricing, budget, timeoutMs: 2_000 })

const failures: Record<string, number> = {}
const giveUpAt = Date.now() + 25_000
async function spender(i: number): Promise<void> {
  while (Date.now() < giveUpAt) {
    try {
      await gate.run({ messages: [{ role: 'user', content: `spender ${seed}-${i}: ${'x'.repeat(2000)}` }], maxTokens: 200 })
    } catch (error) {
      const kind = isReliabilityFailFastError(error) ? error.kind : 'thrown'
      if (kind === 'budget-exceeded') return
      const code = isReliabilityFailFastError(error) ? String((error.cause as { code?: unknown } | undefined)?.code ?? kind) : kind
      failures[code] = (failures[code] ?? 0) + 1
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  failures['gave-up'] = (failures['gave-up'] ?? 0) + 1
}

try {
  await Promise.all(Array.from({ length: Number(spenders) }, (_, i) => spender(i)))
} finally {
  client.disconnect()
}
process.stdout.write(`${JSON.stringify({ calls, billedUsd, unsettledUsd, failures, acked })}\n`)
