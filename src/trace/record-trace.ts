import { createWriteStream, type WriteStream } from 'node:fs'
import type { Subscription } from 'rxjs'
import type { GateEvent } from '../events/event-map.ts'
import type { EventSource } from '../events/event-source.ts'
import { typeName } from '../model/describe-value.ts'
import { isRecord } from '../model/is-record.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { messageOf } from '../model/message-of.ts'
import { jsonSafe, redactionOf, type Redaction } from './json-safe.ts'
import { toTraceRecord, type TraceRecord } from './trace-record.ts'

/** Options of {@link recordTrace}. */
export interface RecordTraceOptions {
  /** The JSON Lines file to write (created, or truncated unless `append`). */
  readonly path: string
  /** Add to an existing file instead of replacing it. @default false */
  readonly append?: boolean
  /**
   * What must not reach the file. A list of field names, each replaced by `"[redacted]"` at any
   * depth (e.g. `['content', 'rawOutput']`; a dotted name such as `'metadata.email'` is that path,
   * under any parent); a single string is refused, not guessed. Or a function given a plain-data copy
   * of each record, returning the record to write or `undefined` to leave the event out; when it
   * throws (or returns anything else), the event is left out, a `record_error` line says so, and
   * `stop()` rejects.
   */
  readonly redact?: readonly string[] | ((record: TraceRecord) => TraceRecord | undefined)
  /** The clock of `ts`. @default Date.now */
  readonly now?: () => number
}

/** A running trace recorder. */
export interface TraceRecorder {
  /** Records another gate's or agent's events into the same file. */
  add(source: EventSource): void
  /**
   * Stops recording; resolves once every line is on disk. Rejects when the file could not be written
   * or when events were left out because recording them failed (a `redact` function or a clock that
   * threw), naming how many.
   */
  stop(): Promise<void>
}

/** The options of {@link recordTrace}, declared once (each value is checked below, in the words of its own errors). */
export const RECORD_TRACE = optionsContract<RecordTraceOptions>('recordTrace', {
  path: option.any(),
  append: option.any(),
  redact: option.any(),
  now: option.any(),
})
const NONE: Redaction = []

type RedactFunction = (record: TraceRecord) => TraceRecord | undefined

/**
 * Records every event of a gate or an agent as JSON Lines, one event per line with its `runId`
 * (see {@link TraceRecord}), for `npx reliability-gate view <file>`. Recording never reaches the run:
 * a value that cannot be written (a throwing getter, a cycle, a huge string) is written as a marker,
 * and an event that cannot be recorded at all is reported by `stop()`.
 *
 * @example
 * const recorder = recordTrace(agent, { path: 'trace.jsonl', redact: ['metadata'] })
 * await agent.run('refund order #42')
 * await recorder.stop()
 */
export function recordTrace(source: EventSource | readonly EventSource[], options: RecordTraceOptions): TraceRecorder {
  const o = checkOptions(options)
  const sources = Array.isArray(source) ? (source as readonly EventSource[]) : [source as EventSource]
  for (const one of sources) checkSource(one)
  const out: WriteStream = createWriteStream(o.path, { flags: o.append === true ? 'a' : 'w', encoding: 'utf8' })
  // A failed write must never reach the run; it is reported when the recorder stops.
  let failure: unknown
  out.on('error', (error) => (failure ??= error))
  let lost = 0
  let firstLoss: unknown
  const now = o.now ?? Date.now
  const transform = typeof o.redact === 'function' ? o.redact : undefined
  const redaction = Array.isArray(o.redact) ? redactionOf(o.redact) : NONE
  const subscriptions: Subscription[] = []
  let stopped: Promise<void> | undefined

  const record = (event: GateEvent): void => {
    let line: string
    try {
      line = recordLine(event, now, redaction, transform)
    } catch (error) {
      lost++
      firstLoss ??= error
      line = lossLine(event, error)
    }
    if (line !== '' && failure === undefined) out.write(`${line}\n`)
  }
  const add = (s: EventSource): void => {
    if (stopped !== undefined) throw new Error('recordTrace: the recorder is stopped')
    checkSource(s)
    // `error` is handled: a failing event stream must not become an uncaught exception inside rxjs.
    const failed = (error: unknown): void => {
      lost++
      firstLoss ??= new Error(`the event stream of a source failed: ${messageOf(error)}`, { cause: error })
    }
    subscriptions.push(s.events$.subscribe({ next: record, error: failed }))
  }
  for (const s of sources) add(s)
  return {
    add,
    stop() {
      stopped ??= new Promise<void>((resolve, reject) => {
        for (const sub of subscriptions) sub.unsubscribe()
        // The callback hears the stream's error too: an open that fails may report after end() was called.
        out.end((error?: Error | null) => {
          failure ??= error ?? undefined
          if (failure !== undefined) reject(failure)
          else if (lost > 0)
            reject(new Error(`recordTrace: ${lost} event${lost === 1 ? ' was' : 's were'} not recorded: ${messageOf(firstLoss)}`, { cause: firstLoss }))
          else resolve()
        })
      })
      return stopped
    },
  }
}

/** The line of one event ('' when `redact` leaves it out); throws when it cannot be recorded. */
function recordLine(event: GateEvent, now: () => number, redaction: Redaction, transform: RedactFunction | undefined): string {
  const ts = now()
  if (typeof ts !== 'number' || !Number.isFinite(ts)) throw new TypeError(`recordTrace: now() must return a finite number, got ${typeName(ts)}`)
  const safe = jsonSafe(toTraceRecord(event, ts), redaction) as TraceRecord
  if (transform === undefined) return JSON.stringify(safe)
  let given: unknown
  try {
    given = transform(safe)
  } catch (error) {
    throw new Error(`recordTrace: redact threw: ${messageOf(error)}`, { cause: error })
  }
  if (given === undefined) return ''
  if (isThenable(given)) {
    // Settled and ignored: a rejection must not become an unhandled one.
    Promise.resolve(given).catch(() => undefined)
    throw new TypeError('recordTrace: redact must return the record or undefined, not a promise')
  }
  if (!isRecord(given)) throw new TypeError(`recordTrace: redact must return the record or undefined, got ${typeName(given)}`)
  return JSON.stringify(jsonSafe(given, NONE))
}

// The line that takes the place of an event that could not be recorded: no field of the event, only what it was.
function lossLine(event: GateEvent, error: unknown): string {
  let runId: unknown
  let type: unknown
  try {
    ;({ runId, type } = event)
  } catch {
    // An event source of another library may deliver anything: the line says what it can.
  }
  const shown = {
    ts: Date.now(),
    type: 'record_error',
    runId: typeof runId === 'string' ? runId : '',
    event: typeof type === 'string' ? type : '?',
    error: messageOf(error),
  }
  return JSON.stringify(jsonSafe(shown, NONE))
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  } catch {
    return false
  }
}

function checkSource(one: unknown): void {
  if (typeof one !== 'object' || one === null || typeof (one as EventSource).on !== 'function' || typeof (one as EventSource).events$ !== 'object') {
    throw new TypeError('recordTrace: expected a gate or an agent, or a list of them (something with on() and events$)')
  }
}

function checkOptions(options: RecordTraceOptions): RecordTraceOptions {
  if (!isRecord(options)) throw new TypeError(`recordTrace: expected { path } naming the file to write, got ${typeName(options)}`)
  const o: RecordTraceOptions = RECORD_TRACE.check(options)
  if (typeof o.path !== 'string' || o.path === '') throw new TypeError('recordTrace: expected { path } naming the file to write')
  if (o.append !== undefined && typeof o.append !== 'boolean') throw new TypeError(`recordTrace: append must be a boolean, got ${typeName(o.append)}`)
  if (o.now !== undefined && typeof o.now !== 'function') throw new TypeError(`recordTrace: now must be a function, got ${typeName(o.now)}`)
  const redact: unknown = o.redact
  if (redact === undefined || typeof redact === 'function') return o
  if (!Array.isArray(redact)) {
    throw new TypeError(
      `recordTrace: redact must be a list of field names or a function, got ${typeName(redact)}${typeof redact === 'string' ? ' (write [name])' : ''}`,
    )
  }
  for (const name of redact) {
    if (typeof name !== 'string' || name === '' || name.split('.').includes('')) {
      throw new TypeError(
        `recordTrace: redact must list field names (non-empty strings), got ${typeof name === 'string' ? JSON.stringify(name) : typeName(name)}`,
      )
    }
  }
  return o
}
