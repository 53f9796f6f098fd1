import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import type { Redis } from 'ioredis'
import { memoryDurablePort } from '../../../src/durable.ts'
import { sharedBudget } from '../../../src/index.ts'
import { redisSessionStore, redisStore } from '../../../src/redis.ts'
import type { CountingProvider, ProviderCall } from './counting-provider.ts'
import { demoAgent, demoKeys, type DemoResult, SESSION_PREFIX, STATE_PREFIX } from './demo-agent.ts'

/** Where a kill lands: before, inside (action done, outcome not journaled) or after a step of a kind. */
export type KillPoint = `${'before' | 'inside' | 'after'} ${StepKind}`
type StepKind = 'attempt' | 'tool' | 'session-base' | 'session-commit'

/** What one demo run leaves behind: its answer, provider calls, refunds, raw executions, budget and session. */
export interface RunTrace {
  readonly result: DemoResult
  readonly calls: readonly ProviderCall[]
  readonly refunds: Readonly<Record<string, string>>
  readonly executions: Readonly<Record<string, string>>
  readonly spentUsd: number
  readonly session: { readonly messages: readonly unknown[]; readonly version: number }
}

/** The uninterrupted run of a seed (in this process, on the in-memory port), with its step names: the sweep's reference. */
export interface Reference extends RunTrace {
  readonly runId: string
  readonly steps: readonly string[]
}

const POSITIONS = ['before', 'inside', 'after'] as const
// The session's two steps (its journaled base, its commit) are one group: nine seeds cover every position of every group.
const GROUPS = ['attempt', 'tool', 'session'] as const

/** The kind of a step name (`attempt:<turn>:<n>`, `tool:<turn>:<callId>`, `session-base`, `session-commit`). */
const kindOf = (step: string): StepKind => (step.startsWith('attempt:') ? 'attempt' : step.startsWith('tool:') ? 'tool' : (step as StepKind))

/**
 * The kill point of seed `seed` (an index into 3 points per step): seeds cycle through the nine
 * (position, group) pairs, so any nine consecutive seeds kill at each; the step of the group is chosen by the seed.
 */
export function killPointOf(seed: number, steps: readonly string[]): number {
  const position = seed % 3
  const group = GROUPS[Math.floor(seed / 3) % 3] as (typeof GROUPS)[number]
  const candidates = steps.flatMap((name, i) => (kindOf(name).startsWith(group) ? [i] : []))
  const step = candidates[(Math.floor(seed / 9) + (seed % 3)) % candidates.length] as number
  return 3 * step + position
}

/** The name of kill point `killAt`. */
export function killPointName(steps: readonly string[], killAt: number): KillPoint {
  return `${POSITIONS[killAt % 3] as (typeof POSITIONS)[number]} ${kindOf(steps[Math.floor(killAt / 3)] as string)}`
}

/** Everything `runId` left in Redis and with the provider, once its run answered `result`. */
export async function traceOf(redis: Redis, provider: CountingProvider, runId: string, result: DemoResult): Promise<RunTrace> {
  const keys = demoKeys(runId)
  const store = redisStore(redis, { keyPrefix: STATE_PREFIX })
  return {
    result,
    calls: provider.of(runId),
    refunds: await redis.hgetall(keys.refunds),
    executions: await redis.hgetall(keys.executions),
    spentUsd: await sharedBudget({ store, key: keys.budget, usd: 100 }).spent(),
    session: await redisSessionStore(redis, { keyPrefix: SESSION_PREFIX }).load(keys.session),
  }
}

/** Runs seed `seed` uninterrupted as `ref-<seed>` in this process and records its trace. */
export async function referenceRun(redis: Redis, provider: CountingProvider, seed: number): Promise<Reference> {
  const runId = `ref-${seed}`
  const journal: string[] = []
  const result = await demoAgent({ baseURL: provider.baseURL, seed, runId, redis }).run(memoryDurablePort({ runId, journal }))
  const steps = journal.map((entry) => (JSON.parse(entry) as { name: string }).name)
  return { runId, steps, ...(await traceOf(redis, provider, runId, result)) }
}

/** One swept run's figures, and each property it must hold (true when it held). */
export interface Verdict {
  readonly point: KillPoint
  readonly providerCalls: number
  /** Calls beyond the uninterrupted run's and the one in flight at the kill: re-billed finished attempts. */
  readonly rebilled: number
  readonly duplicateEffects: number
  /** The budget's spent minus the run's own cost (the call in flight at the kill, or 0). */
  readonly budgetDeltaUsd: number
  readonly holds: {
    readonly sameAnswer: boolean
    readonly finishedAttemptsOnce: boolean
    readonly sameRequests: boolean
    readonly oneEffectPerKey: boolean
    readonly executionsOncePlusInFlight: boolean
    readonly budgetIsOwnCostPlusInFlight: boolean
    readonly historyOnce: boolean
  }
}

/** Every property of a swept run, held: what each verdict's `holds` must equal. */
export const ALL_HOLD: Verdict['holds'] = {
  sameAnswer: true,
  finishedAttemptsOnce: true,
  sameRequests: true,
  oneEffectPerKey: true,
  executionsOncePlusInFlight: true,
  budgetIsOwnCostPlusInFlight: true,
  historyOnce: true,
}

const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-12

/** Judges the trace of run `runId`, killed at `killAt`, against the uninterrupted reference. */
export function verdictOf(reference: Reference, runId: string, killAt: number, trace: RunTrace): Verdict {
  const inFlightStep = killAt % 3 === 1 ? (reference.steps[Math.floor(killAt / 3)] as string) : undefined
  const inFlightAttempt = inFlightStep?.startsWith('attempt:') === true ? inFlightStep.slice('attempt:'.length) : undefined
  const inFlightTool = inFlightStep?.startsWith('tool:') === true ? `${runId}:${inFlightStep.slice('tool:'.length)}` : undefined
  const labels = (calls: readonly ProviderCall[]): string[] => calls.map((c) => c.label).sort()
  const expectedLabels = [...reference.calls.map((c) => c.label), ...(inFlightAttempt === undefined ? [] : [inFlightAttempt])].sort()
  const ownKey = (key: string): string => `${runId}${key.slice(reference.runId.length)}`
  const expectedRefunds = Object.fromEntries(Object.entries(reference.refunds).map(([key, order]) => [ownKey(key), order]))
  const expectedExecutions = Object.fromEntries(Object.keys(reference.executions).map((key) => [ownKey(key), ownKey(key) === inFlightTool ? '2' : '1']))
  const inFlightCost = inFlightAttempt === undefined ? 0 : (reference.calls.find((c) => c.label === inFlightAttempt)?.promptTokens ?? Number.NaN) / 1e6
  const budgetDeltaUsd = trace.spentUsd - trace.result.costUsd
  return {
    point: killPointName(reference.steps, killAt),
    providerCalls: trace.calls.length,
    rebilled: trace.calls.length - expectedLabels.length,
    duplicateEffects: Object.keys(trace.refunds).length - Object.keys(expectedRefunds).length,
    budgetDeltaUsd,
    holds: {
      sameAnswer: isDeepStrictEqual(trace.result.value, reference.result.value) && isDeepStrictEqual(trace.result.calls, reference.result.calls),
      finishedAttemptsOnce: isDeepStrictEqual(labels(trace.calls), expectedLabels),
      // Every request, the schema retry's feedback tail included, is the uninterrupted run's request of that attempt.
      sameRequests: trace.calls.every((c) => isDeepStrictEqual(c.messages, reference.calls.find((r) => r.label === c.label)?.messages)),
      oneEffectPerKey: isDeepStrictEqual(trace.refunds, expectedRefunds),
      executionsOncePlusInFlight: isDeepStrictEqual(trace.executions, expectedExecutions),
      budgetIsOwnCostPlusInFlight: close(trace.result.costUsd, reference.result.costUsd) && close(budgetDeltaUsd, inFlightCost),
      historyOnce: trace.session.version === 1 && isDeepStrictEqual(trace.session.messages, reference.session.messages),
    },
  }
}

/** The sweep's figures over its runs, for the closing note. */
export type SweepFigures = ReturnType<typeof sweepFigures>

/**
 * Prints the figures and, when `RG_DURABLE_SWEEP_RESULTS` names a JSON file, records them there under
 * `engine` (with the command that measured them): `node bench/report.ts` shows that file's figures in BENCHMARKS.md.
 */
export function reportSweep(engine: 'Restate' | 'DBOS', figures: SweepFigures): void {
  process.stdout.write(`durable sweep, ${engine}: ${JSON.stringify(figures)}\n`)
  const file = process.env['RG_DURABLE_SWEEP_RESULTS']
  if (file === undefined || file === '') return
  const recorded = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {}
  const test = engine === 'Restate' ? 'restate-demo-sweep' : 'dbos-demo-sweep'
  const command = `RG_DURABLE_SWEEP=${figures.runs} npx vitest run test/durable/${test}.test.ts`
  writeFileSync(file, `${JSON.stringify({ ...recorded, [engine]: { command, ...figures } }, null, 2)}\n`)
}

export function sweepFigures(verdicts: readonly Verdict[]) {
  const killsByPoint: Record<string, number> = {}
  for (const v of verdicts) killsByPoint[v.point] = (killsByPoint[v.point] ?? 0) + 1
  const deltas = verdicts.map((v) => v.budgetDeltaUsd)
  return {
    runs: verdicts.length,
    killsByPoint,
    providerCalls: verdicts.reduce((n, v) => n + v.providerCalls, 0),
    inFlightCallsRepeated: verdicts.filter((v) => v.point === 'inside attempt').length,
    rebilledAttempts: verdicts.reduce((n, v) => n + v.rebilled, 0),
    duplicateEffects: verdicts.reduce((n, v) => n + v.duplicateEffects, 0),
    budgetDeltaUsd: {
      total: Number(deltas.reduce((a, b) => a + b, 0).toFixed(9)),
      max: Number(Math.max(0, ...deltas).toFixed(9)),
      nonZero: deltas.filter((d) => !close(d, 0)).length,
    },
  }
}
