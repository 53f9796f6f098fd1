import type { ResumeTime } from '../durable/resume-time.ts'
import type { StepCost } from '../durable/step-cost.ts'
import type { SweepFigures } from '../../test/durable/support/demo-sweep.ts'
import type { Machine } from '../support/machine.ts'
import { machineLines } from './bench-sections.ts'
import { ratio, table } from './format.ts'

/** What `node bench/durable-bench.ts` writes to bench/results/durable.json. */
export interface DurableBenchResults {
  readonly machine: Machine
  readonly quick: boolean
  readonly stepCost: readonly StepCost[]
  readonly resume: readonly ResumeTime[]
}

const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–')

/** The BENCHMARKS.md section of `node bench/durable-bench.ts`. */
export function durableSection(r: DurableBenchResults): string[] {
  const out = ['## `node bench/durable-bench.ts`: what a durable run costs', '', ...machineLines(r.machine, [])]
  out.push(
    'Started by the bench on loopback: a `restate-server` (single node, from `@restatedev/restate-server`), a PostgreSQL for',
    `DBOS (\`@dbos-inc/dbos-sdk\`, launched in the bench process or in the worker), a \`redis-server\`.${r.quick ? ' Quick run (`--quick`): few samples.' : ''}`,
    '',
    '### The step around each attempt',
    '',
    'One gate run of two attempts (an answer the schema rejects, then, with the feedback, a valid one) on a scripted provider',
    'that answers at once, so what is timed is the gate and, with a port, the journaled step around each whole attempt',
    '(`bench/durable/bench-gate.ts`). Each row runs the same gate without and with the port, in batches interleaved in one',
    'run (medians of the batches); in the engines both variants run inside the same workflow handler, timed inside it, so',
    'the difference is the journal: Restate acknowledges each `ctx.run` from its log, DBOS writes each step to PostgreSQL.',
    '',
    ...table(
      ['where', 'without port µs/run', 'with port µs/run', 'ratio', 'step cost µs/attempt', 'batches x runs'],
      r.stepCost.map((c) => [c.where, fixed(c.plainUs), fixed(c.durableUs), ratio(c.ratio), fixed(c.perAttemptUs), `${c.samples} x ${c.runsPerSample}`]),
    ),
    '',
    '### Time to resume',
    '',
    'The demo agent of the fault sweep (`test/durable/*-demo-sweep.test.ts`: three tool turns with refunds, a schema retry,',
    'a Redis budget, a Redis session; its provider a loopback OpenAI-wire fake) runs as a workflow whose worker SIGKILLs itself',
    'inside a model attempt step (the answer received, not journaled). A new worker process is started at once; the time is',
    'until the resumed run answers (the replay, the attempt in flight again, the remaining steps). "From restart" counts from',
    "spawning the new process (Node's start and imports included), or, when the server restarts too, from its SIGKILL (its",
    'start on the same folder included); "from ready" from Restate\'s endpoint listening again (then Restate\'s retry of the',
    "invocation reaches it) or from DBOS's `launch()` done (which recovered the workflow). The uninterrupted run is timed",
    'from the request (Restate) or from `launch()` done (DBOS).',
    '',
    ...table(
      ['engine', 'killed', 'from restart ms (p25–p75)', 'from ready ms (p25–p75)', 'uninterrupted run ms', 'samples'],
      r.resume.map((t) => [
        t.engine,
        t.killedAt,
        `${fixed(t.fromRestart.median, 0)} (${fixed(t.fromRestart.p25, 0)}–${fixed(t.fromRestart.p75, 0)})`,
        `${fixed(t.fromReady.median, 0)} (${fixed(t.fromReady.p25, 0)}–${fixed(t.fromReady.p75, 0)})`,
        fixed(t.uninterrupted, 0),
        String(t.samples),
      ]),
    ),
    '',
  )
  return out
}

/** What the fault sweeps record with `RG_DURABLE_SWEEP_RESULTS=bench/results/durable-sweep.json`: each engine's figures and command. */
export type DurableSweepResults = Readonly<Partial<Record<'Restate' | 'DBOS', SweepFigures & { readonly command: string }>>>

const POINTS = ['before', 'inside', 'after'].flatMap((position) => ['attempt', 'tool', 'session-base', 'session-commit'].map((kind) => `${position} ${kind}`))

/** The BENCHMARKS.md section of the durable fault sweeps (test/durable/*-demo-sweep.test.ts). */
export function durableSweepSection(r: DurableSweepResults): string[] {
  const engines = (['Restate', 'DBOS'] as const).flatMap((name) => {
    const figures = r[name]
    return figures === undefined ? [] : [{ name, ...figures }]
  })
  return [
    '### Under SIGKILL: the fault sweeps',
    '',
    'The demo agent above, each seeded run first uninterrupted in the test process (the reference), then as a workflow',
    'SIGKILLed at one kill point (before, inside or after one step: a model attempt, a tool call, the session’s journaled base',
    'or its commit) and resumed. Every run answers as its reference; its provider calls are the reference’s plus the one in',
    'flight at the kill; every request, the retry’s feedback tail included, is the reference’s; each refund’s idempotency key has',
    'one effect; the Redis budget is the run’s own cost plus the call in flight; the session holds the exchange once.',
    '',
    ...table(
      [
        'engine',
        'runs',
        'provider calls (uninterrupted + in flight again)',
        're-billed attempts',
        'duplicate effects',
        'runs with a budget delta',
        'largest delta USD',
        'command',
      ],
      engines.map((e) => [
        e.name,
        String(e.runs),
        `${e.providerCalls} (${e.providerCalls - e.inFlightCallsRepeated - e.rebilledAttempts} + ${e.inFlightCallsRepeated})`,
        String(e.rebilledAttempts),
        String(e.duplicateEffects),
        `${e.budgetDeltaUsd.nonZero} (the kills inside an attempt: ${e.killsByPoint['inside attempt'] ?? 0})`,
        String(e.budgetDeltaUsd.max),
        `\`${e.command}\``,
      ]),
    ),
    '',
    ...table(
      ['kill point', ...engines.map((e) => `${e.name} runs`)],
      POINTS.map((point) => [point, ...engines.map((e) => String(e.killsByPoint[point] ?? 0))]),
    ),
    '',
  ]
}
