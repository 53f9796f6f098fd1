/**
 * A readable per-attempt trace of a run, built only from the public events: what a user would write
 * to watch the gate work.
 */
import type { Agent, GateEventMap } from '../src/index.ts'
import type { EventSource, TraceRecorder } from '../src/trace/index.ts'

// `npm run demo -- --trace demo.jsonl` records every agent and gate the examples watch.
let recorder: TraceRecorder | undefined

/** Records every source passed to {@link watch} (and {@link traceAgent}) from now on. */
export function recordInto(r: TraceRecorder | undefined): void {
  recorder = r
}

/** Adds an agent or a gate to the demo's trace recording, when one is on. */
export function watch(source: EventSource): void {
  recorder?.add(source)
}

const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s)
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s)
const indent = (text: string, by = '      ') =>
  text
    .split('\n')
    .map((l) => by + l)
    .join('\n')
const clip = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max)}…` : text)

/** Prints every attempt of `agent`'s runs; returns the unsubscribe function. */
export function traceAgent(agent: Pick<Agent<unknown>, 'on' | 'events$'>): () => void {
  watch(agent)
  const offs = [
    agent.on('attempt_start', (e) => console.log(bold(`  attempt ${e.attempt}`) + dim(` → ${e.provider}${e.model ? ` (${e.model})` : ''}`))),
    agent.on('attempt_end', (e: GateEventMap['attempt_end']) => {
      const verdict = e.errorKind === 'ok' ? 'valid' : e.errorKind
      console.log(`    result: ${verdict}${dim(`  (${e.usage.inputTokens} in / ${e.usage.outputTokens} out tokens)`)}`)
    }),
    agent.on('validation_failed', (e) => {
      console.log('    raw output:')
      console.log(dim(indent(clip(e.rawOutput ?? ''))))
      console.log(`    event validation_failed  stage=${e.stage} attempt=${e.attempt} cumulativeRetries=${e.cumulativeRetries}`)
    }),
    agent.on('decision', (e) =>
      console.log(`    decision: ${e.decision}${dim(`  (${e.matched ? `rule ${e.kind}` : `no rule matched, default for ${e.kind}`})`)}`),
    ),
    agent.on('retry', (e) => {
      if (e.fromProvider !== e.toProvider) console.log(`    failover: ${e.fromProvider} → ${e.toProvider}`)
      if (e.feedback !== undefined) {
        console.log('    ephemeral feedback sent to the model (never persisted):')
        console.log(dim(indent(e.feedback)))
      }
    }),
    agent.on('recovered', (e) => console.log(`  recovered on attempt ${e.attempt} after ${e.failedAttempts} failed attempt(s)`)),
    agent.on('fail_fast', (e) => console.log(`  fail-fast: kind=${e.kind}${dim(`  ${e.reason}`)}`)),
  ]
  return () => {
    for (const off of offs) off()
  }
}

/** Prints a section title. */
export function section(title: string, what: string): void {
  console.log(`\n${bold(`━━ ${title} `)}${'━'.repeat(Math.max(0, 70 - title.length))}`)
  console.log(dim(what))
}
