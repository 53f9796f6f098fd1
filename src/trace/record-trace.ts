import { createWriteStream, type WriteStream } from 'node:fs'
import type { Subscription } from 'rxjs'
import type { EventSource } from '../events/event-source.ts'
import { stringifyRecord, toTraceRecord, type TraceRecord } from './trace-record.ts'

/** Options of {@link recordTrace}. */
export interface RecordTraceOptions {
  /** The JSON Lines file to write (created, or truncated unless `append`). */
  readonly path: string
  /** Add to an existing file instead of replacing it. @default false */
  readonly append?: boolean
  /**
   * What must not reach the file: field names replaced by `"[redacted]"` at any depth (e.g.
   * `['content', 'rawOutput']`), or a function that returns the record to write, or `undefined` to
   * leave the event out.
   */
  readonly redact?: readonly string[] | ((record: TraceRecord) => TraceRecord | undefined)
  /** The clock of `ts`. @default Date.now */
  readonly now?: () => number
}

/** A running trace recorder. */
export interface TraceRecorder {
  /** Records another gate's or agent's events into the same file. */
  add(source: EventSource): void
  /** Stops recording; resolves once every line is on disk. */
  stop(): Promise<void>
}

/**
 * Records every event of a gate or an agent as JSON Lines, one event per line with its `runId`
 * (see {@link TraceRecord}), for `npx reliability-gate view <file>`.
 *
 * @example
 * const recorder = recordTrace(agent, { path: 'trace.jsonl', redact: ['metadata'] })
 * await agent.run('refund order #42')
 * await recorder.stop()
 */
export function recordTrace(source: EventSource | readonly EventSource[], options: RecordTraceOptions): TraceRecorder {
  if (typeof options !== 'object' || options === null || typeof options.path !== 'string' || options.path === '') {
    throw new TypeError('recordTrace: expected { path } naming the file to write')
  }
  for (const one of Array.isArray(source) ? source : [source]) {
    if (typeof one !== 'object' || one === null || typeof (one as EventSource).on !== 'function') {
      throw new TypeError('recordTrace: expected a gate or an agent, or a list of them (something with on())')
    }
  }
  const out: WriteStream = createWriteStream(options.path, { flags: options.append === true ? 'a' : 'w', encoding: 'utf8' })
  // A failed write must never reach the run; it is reported when the recorder stops.
  let failure: unknown
  out.on('error', (error) => (failure ??= error))
  const now = options.now ?? Date.now
  const redact = options.redact
  const keys = new Set(Array.isArray(redact) ? redact : [])
  const transform = typeof redact === 'function' ? redact : undefined
  const subscriptions: Subscription[] = []
  let stopped: Promise<void> | undefined

  const add = (s: EventSource): void => {
    if (stopped !== undefined) throw new Error('recordTrace: the recorder is stopped')
    subscriptions.push(
      s.events$.subscribe((event) => {
        let record: TraceRecord | undefined = toTraceRecord(event, now())
        if (transform !== undefined) record = transform(record)
        if (record !== undefined && failure === undefined) out.write(`${stringifyRecord(record, keys)}\n`)
      }),
    )
  }
  for (const s of Array.isArray(source) ? source : [source as EventSource]) add(s)
  return {
    add,
    stop() {
      stopped ??= new Promise<void>((resolve, reject) => {
        for (const sub of subscriptions) sub.unsubscribe()
        out.end(() => (failure === undefined ? resolve() : reject(failure)))
      })
      return stopped
    },
  }
}
