// One process of a fleet, run by cross-process.test.ts with `node fleet-worker.ts <port> <role> <now>`.
// It imports the library's TypeScript sources directly (Node strips the types) and prints one JSON
// line with what it observed.
import { Redis } from 'ioredis'
import { circuitBreaker, createGate, failoverRule, isReliabilityFailFastError, ProviderError, sharedBudget, sharedRateLimit } from '../../../src/index.ts'
import { scripted } from '../../../src/providers/index.ts'
import { redisStore } from '../../../src/store/redis/index.ts'
import { ask, Refund, validRefundJson } from '../../support/schemas.ts'

const [port, role, now] = process.argv.slice(2).map(String)
const client = new Redis({ host: '127.0.0.1', port: Number(port), maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 500, lazyConnect: true })
await client.connect()
const store = redisStore(client, { keyPrefix: 'fleet:' })

// 1 USD per million input tokens: an answer of 100_000 input tokens costs $0.10.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = { content: validRefundJson, usage: { inputTokens: 100_000, outputTokens: 0 } }
const budget = sharedBudget({ store, key: 'budget', usd: 0.2 })
const breaker = circuitBreaker({ store, failureThreshold: 2, cooldownMs: 60_000 })
const rateLimit = sharedRateLimit({ store, key: 'rl', limit: 3, windowMs: 60_000, now: () => Number(now) })

/** How a run ended: 'ok' or the fail-fast kind. */
async function outcome(run: Promise<unknown>): Promise<string> {
  try {
    await run
    return 'ok'
  } catch (error) {
    return isReliabilityFailFastError(error) ? error.kind : `thrown: ${String(error)}`
  }
}

const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })
let report: Record<string, unknown>
try {
  if (role === 'first') {
    // Spend the whole budget, open the breaker of "llm", take two of the three rate-limit slots.
    const spender = createGate({ providers: scripted([tenCents, tenCents]), model: 'm', pricing, outputSchema: Refund, budget })
    const failing = createGate({ providers: scripted([down(), down()], { name: 'llm' }), breaker })
    const limited = createGate({ providers: scripted([validRefundJson, validRefundJson], { name: 'api' }), rateLimit })
    report = {
      budget: [await outcome(spender.run(ask('1'))), await outcome(spender.run(ask('2')))],
      breaker: [await outcome(failing.run(ask('3'))), await outcome(failing.run(ask('4')))],
      rateLimit: [await outcome(limited.run(ask('5'))), await outcome(limited.run(ask('6')))],
    }
  } else if (role === 'second') {
    const budgetProvider = scripted([tenCents])
    const breakerProvider = scripted([validRefundJson], { name: 'llm' })
    const api = scripted([validRefundJson, validRefundJson], { name: 'api' })
    const backup = scripted([validRefundJson], { name: 'backup' })
    const spender = createGate({ providers: budgetProvider, model: 'm', pricing, outputSchema: Refund, budget })
    const healthy = createGate({ providers: breakerProvider, breaker })
    const limited = createGate({ providers: [api, backup], rateLimit, postDecide: [failoverRule()] })
    report = {
      budget: await outcome(spender.run(ask('1'))),
      budgetCalls: budgetProvider.calls,
      breaker: await outcome(healthy.run(ask('2'))),
      breakerCalls: breakerProvider.calls,
      // The first call takes the window's last slot; the second fails over to the backup.
      rateLimit: [await outcome(limited.run(ask('3'))), await outcome(limited.run(ask('4')))],
      apiCalls: api.calls,
      backupCalls: backup.calls,
    }
  } else {
    // 'race': take 20 slots at once from a window of `limit` 3, against another process doing the same.
    const permits = await Promise.all(Array.from({ length: 20 }, () => rateLimit.acquire('race')))
    report = { allowed: permits.filter((p) => p.allowed).length }
  }
} finally {
  client.disconnect()
}
process.stdout.write(`${JSON.stringify(report)}\n`)
