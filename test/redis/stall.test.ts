import type { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { beforeAll, expect, it } from 'vitest'
import { circuitBreaker, createGate, isReliabilityFailFastError, sharedBudget, sharedRateLimit, type Gate, type Provider } from '../../src/index.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { ask, validRefundJson } from '../support/schemas.ts'
import { useRedis } from './support/use-redis.ts'

// The server is stopped (SIGSTOP: it keeps every connection and answers nothing) for STALL_MS while
// four gates keep running, then woken (SIGCONT).
const STALL_MS = 5_000
const TIMEOUT_MS = 500
const COMMAND_TIMEOUT_MS = 50
const MAX_PENDING = 16
const LOOPS = 4
// What a run may take beyond its deadline on a busy machine: far below the stall.
const SLACK_MS = 700
const RECOVERY_BOUND_MS = 2_000

const redis = useRedis(2)

/** One run of a gate: when it started (ms from the stall), what it cost, how it ended, and whether its provider was called. */
interface Run {
  readonly at: number
  readonly ms: number
  readonly outcome: string
  readonly called: boolean
}

interface Fleet {
  readonly runs: Record<string, Run[]>
  /** The most commands each client had waiting for the server at once, during the stall. */
  readonly mostPending: readonly number[]
  /** When SIGCONT was sent, in ms from SIGSTOP. */
  readonly wokeAt: number
}

/** A provider that answers at once and bills $0.01. */
function provider(): Provider & { calls: number } {
  const p = {
    name: 'llm',
    calls: 0,
    complete: async () => {
      p.calls++
      return { content: validRefundJson, toolCalls: [], usage: { inputTokens: 10_000, outputTokens: 0 }, stopReason: 'end' as const }
    },
  }
  return p
}

/** A budget gate and an advisory gate (breaker and rate limit) on a store of `client`. */
function gatesOn(client: Redis, label: string, commandTimeoutMs: number | undefined): Record<string, { gate: Gate; provider: ReturnType<typeof provider> }> {
  const store = redisStore(client, { keyPrefix: `${label}:`, maxPending: MAX_PENDING, ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }) })
  const spend = provider()
  const pass = provider()
  const budget = sharedBudget({ store, key: 'budget', usd: 1_000, reservationTtlMs: 2_000 })
  const breaker = circuitBreaker({ store, failureThreshold: 3 })
  const rateLimit = sharedRateLimit({ store, key: 'rl', limit: 1_000_000, windowMs: 60_000 })
  return {
    [`${label}/budget`]: {
      gate: createGate({ providers: spend, model: 'm', pricing: { m: { input: 1, output: 0 } }, budget, timeoutMs: TIMEOUT_MS }),
      provider: spend,
    },
    [`${label}/advisory`]: { gate: createGate({ providers: pass, breaker, rateLimit, timeoutMs: TIMEOUT_MS }), provider: pass },
  }
}

/** Why a run failed: the code of its cause when it has one, else its kind. */
function outcomeOf(error: unknown): string {
  if (!isReliabilityFailFastError(error)) return `thrown: ${String(error)}`
  const code = (error.cause as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? `${error.kind}/${code}` : error.kind
}

/** Stalls the server while every gate runs in LOOPS loops, wakes it, and runs on until every gate answered again. */
async function runThroughStall(): Promise<Fleet> {
  const [timed, untimed] = redis.clients as [Redis, Redis]
  const gates = { ...gatesOn(timed, 'timed', COMMAND_TIMEOUT_MS), ...gatesOn(untimed, 'untimed', undefined) }
  for (const { gate } of Object.values(gates)) await gate.run(ask('warm-up'))
  const runs: Record<string, Run[]> = Object.fromEntries(Object.keys(gates).map((name) => [name, []]))
  const mostPending = [0, 0]
  const started = Date.now()
  let wokeAt = Number.POSITIVE_INFINITY
  redis.server.signal('SIGSTOP')
  const loop = async (name: string): Promise<void> => {
    const { gate, provider } = gates[name] as (typeof gates)[string]
    for (;;) {
      const at = Date.now() - started
      const calls = provider.calls
      const outcome = await gate.run(ask(name)).then(() => 'ok', outcomeOf)
      ;(runs[name] as Run[]).push({ at, ms: Date.now() - started - at, outcome, called: provider.calls > calls })
      if (outcome === 'ok' && at >= wokeAt) return
      if (Date.now() - started > wokeAt + 3 * RECOVERY_BOUND_MS) return
      await sleep(10)
    }
  }
  const loops = Object.keys(gates).flatMap((name) => Array.from({ length: LOOPS }, () => loop(name)))
  while (Date.now() - started < STALL_MS) {
    for (const [i, client] of [timed, untimed].entries()) mostPending[i] = Math.max(mostPending[i] as number, client.commandQueue.length)
    await sleep(10)
  }
  redis.server.signal('SIGCONT')
  wokeAt = Date.now() - started
  await Promise.all(loops)
  for (const [name, list] of Object.entries(runs)) {
    const stalled = list.filter((r) => r.at + r.ms < wokeAt)
    const counts: Record<string, number> = {}
    for (const r of stalled) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1
    const recovered = list.find((r) => r.outcome === 'ok' && r.at >= wokeAt)
    console.log(
      `[stall] ${name}: ${stalled.length} runs during the ${STALL_MS} ms stall ${JSON.stringify(counts)}, slowest ${Math.max(...list.map((r) => r.ms))} ms; ` +
        `first success ${recovered === undefined ? 'never' : `${recovered.at + recovered.ms - wokeAt} ms`} after SIGCONT`,
    )
  }
  console.log(`[stall] most commands waiting on the stalled server: ${mostPending.join(' and ')} (maxPending ${MAX_PENDING})`)
  return { runs, mostPending, wokeAt }
}

describeWith(redisServer)('a Redis server stalled by SIGSTOP for 5 s, then woken by SIGCONT (gate timeoutMs 500)', () => {
  let fleet: Fleet
  beforeAll(async () => {
    fleet = await runThroughStall()
  }, 30_000)

  /** The runs of `name` that ended before the server woke. */
  const during = (name: string): Run[] => (fleet.runs[name] ?? []).filter((r) => r.at + r.ms < fleet.wokeAt)

  it('settles every run within its deadline: nothing waits for the server', () => {
    for (const list of Object.values(fleet.runs)) for (const run of list) expect(run.ms).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS)
  })

  it('fails a shared budget closed before its provider is called: code budget-store-failed (kind timeout while a store without commandTimeoutMs fills up)', () => {
    expect(during('timed/budget').length).toBeGreaterThan(0)
    expect(new Set(during('timed/budget').map((r) => r.outcome))).toEqual(new Set(['unknown/budget-store-failed']))
    expect(new Set(during('untimed/budget').map((r) => r.outcome))).toEqual(new Set(['timeout', 'unknown/budget-store-failed']))
    expect([...during('timed/budget'), ...during('untimed/budget')].some((r) => r.called)).toBe(false)
  })

  it('lets calls through the advisory breaker and rate limit when commandTimeoutMs is below the deadline', () => {
    expect(during('timed/advisory').length).toBeGreaterThan(0)
    expect(during('timed/advisory').every((r) => r.outcome === 'ok' && r.called)).toBe(true)
  })

  it('costs an advisory gate its whole deadline (kind timeout) while a store without commandTimeoutMs fills up, then lets calls through', () => {
    const runs = during('untimed/advisory')
    expect(new Set(runs.map((r) => r.outcome))).toEqual(new Set(['timeout', 'ok']))
    // Only the first runs wait: once maxPending commands wait, the store refuses at once.
    expect(runs.filter((r) => r.outcome === 'timeout').length).toBeLessThanOrEqual(MAX_PENDING)
    expect(runs.filter((r) => r.outcome === 'ok').every((r) => r.called)).toBe(true)
  })

  it('keeps at most maxPending commands waiting on the stalled server, per store', () => {
    expect(fleet.mostPending.every((n) => n > 0 && n <= MAX_PENDING)).toBe(true)
  })

  it('recovers after SIGCONT without a restart: every gate answers again within 2 s', () => {
    for (const list of Object.values(fleet.runs)) {
      const recovered = list.find((r) => r.outcome === 'ok' && r.at >= fleet.wokeAt)
      expect(recovered).toBeDefined()
      expect((recovered as Run).at + (recovered as Run).ms - fleet.wokeAt).toBeLessThanOrEqual(RECOVERY_BOUND_MS)
    }
  })
})
