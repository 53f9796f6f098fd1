import type { Machine } from '../support/machine.ts'
import type { BenchRow } from '../support/bench-row.ts'
import { bytes, ratio, table, us } from './format.ts'

interface BenchResults {
  readonly machine: Machine
  readonly flags: readonly string[]
  readonly scenarios: readonly { readonly id: string; readonly title: string; readonly rows: readonly BenchRow[] }[]
  readonly scaling: {
    readonly retryAssembly: { readonly rows: readonly { historySize: number; medianNs: number }[]; readonly ratio: number }
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
}

const FLOOR = 'floor (hand-written loop)'
const GATE = 'reliability-gate: gate + events'
const TARGETS: readonly { scenario: string; what: 'time' | 'heap'; max: number }[] = [
  { scenario: 'a', what: 'time', max: 3 },
  { scenario: 'c', what: 'time', max: 2 },
  { scenario: 'a', what: 'heap', max: 3 },
]

export function machineLines(m: Machine, flags: readonly string[]): string[] {
  return [
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.platform}; Node ${m.node} (V8 ${m.v8}); flags \`${flags.join(' ') || 'none'}\`; load average ${m.loadAverage ?? '?'} at start; ${m.date}.`,
    '',
  ]
}

export function benchSections(r: BenchResults): string[] {
  const out: string[] = ['## `npm run bench`: per-call overhead against peers', '', ...machineLines(r.machine, r.flags)]
  out.push(
    'Every contender gets the same schema (TypeBox; the Zod equivalent for peers that need Zod), the same payloads and the',
    'same scripted answers, from providers that return a pre-built response (zero latency); backoff delays are zeroed.',
    'Each contender is measured alone, in a fresh Node process per scenario (`bench/measure-one.ts`), after a warm-up:',
    'in one shared process, code that another contender also drives (the AI SDK middleware runs the same gate) can stay',
    'in V8\'s mid tier for a whole measurement, which for the gate in (a) read about 3.5 µs instead of the settled 2.2 µs.',
    'Time is mitata\'s median of per-batch means, with the 25th–75th percentile spread, best of 3 interleaved rounds',
    '(the machine is shared, so the load average is printed above); "x floor" is the median over the floor\'s median.',
    'Heap per call: V8 `used_heap_size` growth over batches of 100 calls, each batch after a forced full',
    'GC, median of 25 batches (the process runs with `--expose-gc --max-semi-space-size=64`, so a batch is rarely',
    'interrupted by a scavenge). Every contender must return the same accepted value before it is timed.',
    '',
  )
  for (const scenario of r.scenarios) {
    const floor = scenario.rows.find((row) => row.contender === FLOOR)
    out.push(`### ${scenario.title}`, '')
    const rows = scenario.rows.map((row) => {
      if (row.status !== 'ok' || row.time === undefined) return [row.contender, row.status === 'error' ? `error: ${row.reason ?? ''}` : (row.reason ?? ''), '', '', '', '']
      const t = row.time
      const fr = floor?.time !== undefined ? ratio(t.medianNs / floor.time.medianNs) : '–'
      const hr = floor?.heapBytesPerCall !== undefined && row.heapBytesPerCall !== undefined ? ratio(row.heapBytesPerCall / floor.heapBytesPerCall) : '–'
      return [row.contender, us(t.medianNs), `${us(t.p25Ns)}–${us(t.p75Ns)}`, fr, `${bytes(row.heapBytesPerCall)} (${hr})`, row.note ?? '']
    })
    out.push(...table(['contender', 'median µs', 'p25–p75 µs', 'x floor', 'heap/call (x floor)', 'how'], rows), '')
  }
  out.push('### Targets (reliability-gate with events, rules and attempt logs on)', '')
  const targetRows = TARGETS.map((t) => {
    const scenario = r.scenarios.find((s) => s.id === t.scenario)
    const floor = scenario?.rows.find((row) => row.contender === FLOOR)
    const gate = scenario?.rows.find((row) => row.contender === GATE)
    const measured =
      t.what === 'time'
        ? floor?.time !== undefined && gate?.time !== undefined
          ? gate.time.medianNs / floor.time.medianNs
          : undefined
        : floor?.heapBytesPerCall !== undefined && gate?.heapBytesPerCall !== undefined
          ? gate.heapBytesPerCall / floor.heapBytesPerCall
          : undefined
    const label = `(${t.scenario}) ${t.what === 'time' ? 'time' : 'heap'} ≤ ${t.max}x floor`
    return [label, measured === undefined ? 'not measured' : ratio(measured), measured === undefined ? '–' : measured <= t.max ? 'met' : 'missed']
  })
  out.push(...table(['target', 'measured', 'verdict'], targetRows), '')

  const s = r.scaling
  out.push('## Scaling and memory', '', '### Retry assembly against base history size', '')
  out.push('Scenario (c) (one schema retry) through the gate with a base history of N messages; the provider does not read the messages, so the difference is the gate\'s own assembly of the retry request.', '')
  out.push(...table(['history', 'median µs per run'], s.retryAssembly.rows.map((row) => [row.historySize.toLocaleString('en-US'), us(row.medianNs)])))
  out.push('', `Ratio 10,000 : 10 = **${ratio(s.retryAssembly.ratio)}** (flat means ≈ 1x).`, '')
  out.push('### Bytes sent to the model per retry', '', 'UTF-8 bytes of `messages` (JSON) on the n-th retry, each retry answering a different schema error.', '')
  out.push(...table(['retry', '`latest` (default)', '`accumulate`'], s.bytesPerRetry.map((row) => [String(row.retries), bytes(row.latestBytes), bytes(row.accumulateBytes)])), '')
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
  return out
}
