import type { Machine } from '../support/machine.ts'
import type { BenchRow } from '../support/bench-row.ts'
import { ANCHORS, FLOOR, FLOOR_WITH_LOG, NOISE_MARGIN, TARGETS, targetLabel, targetRatio } from '../targets.ts'
import { bytes, ratio, table, us } from './format.ts'
import { INSTALL_TARGET_MIB, loadSections, type LoadResults } from './load-sections.ts'

interface BenchResults {
  readonly machine: Machine
  readonly flags: readonly string[]
  readonly scenarios: readonly { readonly id: string; readonly title: string; readonly rows: readonly BenchRow[] }[]
  readonly scaling: {
    readonly retryAssembly: {
      readonly rows: readonly { historySize: number; medianNs: number; directNs?: number; retryNs?: number }[]
      readonly ratio: number
    }
    readonly bytesPerRetry: readonly { retries: number; latestBytes: number; accumulateBytes: number }[]
    readonly soak: {
      runs: number
      heapBeforeBytes: number
      heapAfterBytes: number
      hubListenersBefore: number
      hubListenersAfter: number
      signalListenersBefore: number
      signalListenersAfter: number
    }
  }
  readonly load?: LoadResults
}

/** Flat-figure limits: what "flat" means in the targets table. */
const FLAT = { retryAssemblyMax: 1.5, soakHeapGrowthMaxBytes: 1 << 20 } as const

export function machineLines(m: Machine, flags: readonly string[]): string[] {
  return [
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.platform}; Node ${m.node} (V8 ${m.v8}); flags \`${flags.join(' ') || 'none'}\`; load average ${m.loadAverage ?? '?'} at start; ${m.date}.`,
    '',
  ]
}

export function benchSections(r: BenchResults): string[] {
  const out: string[] = ['## `npm run bench`: per-call overhead against peers', '', ...machineLines(r.machine, r.flags)]
  out.push(
    'Every contender does the same job on the same scripted answers and must return the same accepted value before it is',
    "timed. The schema is `{action: 'refund' | 'reject', amount: number}`, closed to unknown fields (TypeBox; the Zod",
    'equivalent for peers that take Zod); the invalid answer of (c) carries one issue (`amount: "USD 50"`).',
    '',
    '**The floor** (`bench/contenders/floor.ts`) is the minimal loop a user would write by hand: a synchronous stub model',
    '(a function returning the next scripted string; no Promise), `JSON.parse` in a try/catch, a compiled TypeBox `Check`,',
    'on failure one `Errors()` pass turned into feedback lines and two messages appended (the echo, then the feedback), at',
    'most 3 attempts; the loop is an `async` function with nothing awaited inside and throws no Error per rejection.',
    '',
    "**floor + attempt log** (`bench/contenders/floor-with-log.ts`) is a reference row, not a target: the floor's loop",
    "plus what the gate's contract costs whatever the library does inside it: an async provider (`complete()` returning a",
    "Promise), a run id, two clock reads per attempt, one attempt log entry with the gate's 21 fields per attempt, and a",
    "result object with the gate's fields; no events, rules, repair or metering. It is written as a careful user would",
    '(promise reactions, no async function, one state object per run). The gate does all of that and more through one',
    'run loop (an async loop, the attempt chain, events, rules), with no second path for the first answer: the gap',
    'between this row and the gate, plain is what that one implementation costs.',
    '',
    '**reliability-gate, plain** runs at its defaults (JSON repair on, attempt logs kept, `latest` feedback) with',
    '`strictOutputRules(3)` (scenario (e) adds `failoverRule()`) and a `validation_failed` listener ("no listener": without it).',
    '**reliability-gate, production config** (`bench/contenders/production.ts`) is what a service runs:',
    '`retryTransient()`, `failoverRule()` and `strictOutputRules(2)`, a price table, `timeoutMs: 30_000`, a `circuitBreaker` and',
    'a `sharedBudget` (never tripped) on one `memoryStore()`, two providers, a `validation_failed` listener and',
    "`instrument(gate)` through the global OpenTelemetry API with no SDK registered. It skips (e): `retryTransient()`'s",
    "default backoff would be the time. Its anchor is **cockatiel's production composition**",
    "(`bench/contenders/cockatiel-production.ts`): `wrap(retry, circuitBreaker, timeout(30 s))` around the floor's attempt.",
    "The providers and the peers' mock models return pre-built answers (zero latency); retry delays the rows choose are zeroed.",
    '',
    'Each contender is measured alone, in a fresh Node process per scenario (`bench/measure-one.ts`), after a warm-up of at least 600 ms (settled code).',
    "Time is mitata's median of per-batch means, with the 25th–75th percentile spread, best of 3 interleaved rounds",
    '(the machine is shared, so the load average is printed above); "x floor" is the median over the floor\'s median.',
    'Heap per call: V8 `used_heap_size` growth over batches of 100 calls, each batch after a forced full',
    'GC, median of 25 batches (the process runs with `--expose-gc --min-semi-space-size=64 --max-semi-space-size=64`:',
    'a young generation of a fixed 64 MiB, so a batch is rarely interrupted by a scavenge, and V8 does not shrink it',
    'between rounds, which made the floor itself bimodal, 0.30 or 0.51 µs).',
    '',
  )
  for (const scenario of r.scenarios) {
    const floor = scenario.rows.find((row) => row.contender === FLOOR)
    out.push(`### ${scenario.title}`, '')
    const rows = scenario.rows.map((row) => {
      if (row.status !== 'ok' || row.time === undefined)
        return [row.contender, row.status === 'error' ? `error: ${row.reason ?? ''}` : (row.reason ?? ''), '', '', '', '']
      const t = row.time
      const fr = floor?.time !== undefined ? ratio(t.medianNs / floor.time.medianNs) : '–'
      const hr = floor?.heapBytesPerCall !== undefined && row.heapBytesPerCall !== undefined ? ratio(row.heapBytesPerCall / floor.heapBytesPerCall) : '–'
      return [row.contender, us(t.medianNs), `${us(t.p25Ns)}–${us(t.p75Ns)}`, fr, `${bytes(row.heapBytesPerCall)} (${hr})`, row.note ?? '']
    })
    out.push(...table(['contender', 'median µs', 'p25–p75 µs', 'x floor', 'heap/call (x floor)', 'how'], rows), '')
  }
  out.push(...targetsSection(r))
  const s = r.scaling
  out.push('## Scaling and memory', '', '### Retry assembly against base history size', '')
  out.push(
    "Scenario (c) (one schema retry) through the gate with a base history of N messages; the provider does not read the messages. A retry's cost is the run with one retry minus the same run answered valid at once (timed in alternating pairs, sizes taking turns): the retry's assembly, its attempt and its decision. A whole run also includes `gate.run`'s once-per-run check of every message of the request, which grows with the history by design.",
    '',
  )
  out.push(
    ...table(
      ['history', 'median µs per run with one retry', 'median µs per run answered at once', 'the retry, µs'],
      s.retryAssembly.rows.map((row) => [
        row.historySize.toLocaleString('en-US'),
        us(row.medianNs),
        row.directNs === undefined ? '–' : us(row.directNs),
        row.retryNs === undefined ? '–' : us(row.retryNs),
      ]),
    ),
  )
  out.push('', `Ratio of the retry's cost, 10,000 : 10 = **${ratio(s.retryAssembly.ratio)}** (flat means ≈ 1x).`, '')
  out.push(
    '### Bytes sent to the model per retry',
    '',
    'UTF-8 bytes of `messages` (JSON) on the n-th retry, each retry answering a different schema error.',
    '',
  )
  out.push(
    ...table(
      ['retry', '`latest` (default)', '`accumulate`'],
      s.bytesPerRetry.map((row) => [String(row.retries), bytes(row.latestBytes), bytes(row.accumulateBytes)]),
    ),
    '',
  )
  const k = s.soak
  out.push(`### ${k.runs.toLocaleString('en-US')} gate runs in one process`, '')
  out.push('Scenario (c) on one gate with two listeners, an rxjs subscription, a timeout and one long-lived AbortSignal; heap after a full GC.', '')
  out.push(
    ...table(
      ['', 'before', 'after'],
      [
        ['heap used', bytes(k.heapBeforeBytes), bytes(k.heapAfterBytes)],
        ['event-hub listeners', String(k.hubListenersBefore), String(k.hubListenersAfter)],
        ["AbortSignal 'abort' listeners", String(k.signalListenersBefore), String(k.signalListenersAfter)],
      ],
    ),
    '',
  )
  if (r.load !== undefined) out.push(...loadSections(r.load))
  return out
}

/** The targets table: the ratio targets to the floor, then the flat figures. */
function targetsSection(r: BenchResults): string[] {
  const rows = TARGETS.map((t) => {
    const scenario = r.scenarios.find((s) => s.id === t.scenario)
    const measured = scenario === undefined ? undefined : targetRatio(t, scenario.rows)
    return [targetLabel(t), measured === undefined ? 'not measured' : ratio(measured), measured === undefined ? '–' : measured <= t.max ? 'met' : 'not met']
  })
  for (const a of ANCHORS) {
    const scenario = r.scenarios.find((s) => s.id === a.scenario)
    const measured = scenario === undefined ? undefined : targetRatio(a, scenario.rows)
    rows.push([targetLabel(a), measured === undefined ? 'not measured' : ratio(measured), 'anchor, not a target'])
  }
  const s = r.scaling
  const latest = s.bytesPerRetry.map((row) => row.latestBytes)
  const latestFlat = latest.length > 0 && Math.max(...latest) === Math.min(...latest)
  const growth = s.soak.heapAfterBytes - s.soak.heapBeforeBytes
  const listenersKept = s.soak.hubListenersAfter === s.soak.hubListenersBefore && s.soak.signalListenersAfter === s.soak.signalListenersBefore
  rows.push(
    [
      `retry assembly, 10,000 : 10 history messages ≤ ${FLAT.retryAssemblyMax}x`,
      ratio(s.retryAssembly.ratio),
      s.retryAssembly.ratio <= FLAT.retryAssemblyMax ? 'met' : 'not met',
    ],
    ['bytes per retry in `latest` mode, retries 1–5 equal', latest.map((b) => bytes(b)).join(' / '), latestFlat ? 'met' : 'not met'],
    [`heap growth over ${s.soak.runs.toLocaleString('en-US')} runs ≤ 1 MiB`, bytes(growth), growth <= FLAT.soakHeapGrowthMaxBytes ? 'met' : 'not met'],
    [
      'listeners after the runs = before',
      `hub ${s.soak.hubListenersBefore} → ${s.soak.hubListenersAfter}, signal ${s.soak.signalListenersBefore} → ${s.soak.signalListenersAfter}`,
      listenersKept ? 'met' : 'not met',
    ],
  )
  if (r.load !== undefined) {
    const { importCost, install } = r.load
    const installMiB = install.gate.totalBytes / 2 ** 20
    rows.push(
      ["main entry cold import ≤ `ai`'s (median of fresh processes)", ratio(importCost.ratio), importCost.ratio <= 1 ? 'met' : 'not met'],
      [`install with runtime dependencies ≤ ${INSTALL_TARGET_MIB} MiB`, `${installMiB.toFixed(2)} MiB`, installMiB <= INSTALL_TARGET_MIB ? 'met' : 'not met'],
    )
  }
  return [
    '### Targets (reliability-gate plain and with the production config, listener, rules and attempt logs on)',
    '',
    '`npm run bench:check` re-measures the ratio targets quickly (floor, gate and `Agent.runTyped` plain, gate with the',
    'production config, and the cockatiel anchor on (a) and (c)) and exits with code 1 when a target is missed by more than',
    `its ${NOISE_MARGIN * 100}% noise margin.`,
    '',
    ...table(['target', 'measured', 'verdict'], rows),
    '',
    ...contractReference(r),
  ]
}

/** What the gate's contract alone costs on (a), from the reference row, to read the targets against. */
function contractReference(r: BenchResults): string[] {
  const rows = r.scenarios.find((s) => s.id === 'a')?.rows ?? []
  const time = targetRatio({ scenario: 'a', contender: FLOOR_WITH_LOG, what: 'time' }, rows)
  const heap = targetRatio({ scenario: 'a', contender: FLOOR_WITH_LOG, what: 'heap' }, rows)
  if (time === undefined || heap === undefined) return []
  return [
    `For reference, the floor with the gate's contract written by hand (an async provider, a run id, clock reads, the attempt`,
    `log and the result object, nothing else: the "floor + attempt log" row) is ${ratio(time)} the floor's time and ${ratio(heap)} its heap on (a).`,
    '',
  ]
}
