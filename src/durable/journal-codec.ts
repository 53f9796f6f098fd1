import { ERROR_KINDS } from '../model/error-kind.ts'
import { shownValue } from '../model/describe-value.ts'
import { errorName, messageOf } from '../model/message-of.ts'
import { isProviderError, ProviderError, type ProviderErrorOptions } from '../model/provider-error.ts'
import { DurableRunError } from './durable-run-error.ts'
import type { JournaledFailure, JournalEntry, JsonValue } from './journal-entry.ts'
import { longestWait } from '../model/retry-after.ts'

/** Where a step stands in its run: what its journal entry must say on replay. */
export interface StepPosition {
  readonly runId: string
  readonly seq: number
  readonly name: string
}

/** Error messages are journaled up to this many characters: a journal entry stays small whatever a provider wrote. */
export const MAX_JOURNALED_MESSAGE = 4096

// An error's name is journaled up to this many characters.
const MAX_ERROR_NAME = 200

/** Text of a journal entry quoted in an error: cut, so an edited entry cannot grow the message (and the logs that carry it). */
export function quoted(text: string): string {
  return JSON.stringify(text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text)
}
const MAX_QUOTED = 256

/**
 * The entry of a step that answered `value`: the value as JSON data (what a replay will answer, so the
 * first execution answers the same). A value JSON cannot write (a BigInt, a cycle) is journaled as
 * the step's `TypeError`, as is one a replay would refuse to hand back (a `__proto__` key, a
 * `constructor` holding a `prototype`, nesting past 256 levels): the first execution fails as its replay would.
 */
export function encodeSuccess(at: StepPosition, value: unknown): JournalEntry {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    return encodeFailure(at, new TypeError(`the value of step ${JSON.stringify(at.name)} cannot be journaled as JSON: ${messageOf(error)}`))
  }
  if (text === undefined) return { v: 1, runId: at.runId, seq: at.seq, name: at.name, ok: true }
  const data = JSON.parse(text) as JsonValue
  // What a replay would refuse as a corrupt entry is refused now, on the first execution: a run answers the same either way.
  const bad = unsafeKey(data, 0)
  if (bad !== undefined) return encodeFailure(at, new TypeError(`the value of step ${JSON.stringify(at.name)} cannot be journaled: it ${bad}`))
  return { v: 1, runId: at.runId, seq: at.seq, name: at.name, ok: true, value: data }
}

/** The entry of a step that threw `error`: a `ProviderError` with its kind, status, code, retry-after and provider; anything else with its name and message. */
export function encodeFailure(at: StepPosition, error: unknown): JournalEntry {
  const message = messageOf(error).slice(0, MAX_JOURNALED_MESSAGE)
  let failure: JournaledFailure
  if (isProviderError(error)) {
    const e = error as ProviderError
    failure = {
      class: 'ProviderError',
      message,
      kind: e.kind,
      ...(e.status === undefined ? {} : { status: e.status }),
      ...(e.code === undefined ? {} : { code: e.code.slice(0, MAX_JOURNALED_MESSAGE) }),
      ...(e.retryAfterMs === undefined ? {} : { retryAfterMs: e.retryAfterMs }),
      ...(e.provider === undefined ? {} : { provider: e.provider.slice(0, MAX_JOURNALED_MESSAGE) }),
    }
  } else {
    failure = { class: 'Error', name: (errorName(error) ?? 'Error').slice(0, MAX_ERROR_NAME), message }
  }
  return { v: 1, runId: at.runId, seq: at.seq, name: at.name, ok: false, error: failure }
}

/**
 * The run a journal entry names (`runId`), when it names one that is not `at`'s: the entry is another run's. An engine's
 * journal is its run's own (a fork of a run, as DBOS makes one, reads its parent's entries on purpose); a journal handed
 * over as data (`memoryDurablePort`) is checked with this where it is read.
 */
export function foreignRun(at: StepPosition, raw: unknown): DurableRunError | undefined {
  const entry = readEntry(at, raw)
  if (entry.runId === undefined || entry.runId === at.runId) return undefined
  return new DurableRunError('divergence', {
    runId: at.runId,
    step: at.name,
    reason: `the journal holds an entry of run ${quoted(entry.runId)} at position ${entry.seq}: it is another run's journal`,
  })
}

/**
 * The outcome a journal entry holds, for the step at `at`: its value, or its error rebuilt (thrown by
 * the caller). An entry of another step or position is a `divergence`; anything the port did not write
 * (a wrong shape, a `__proto__` key, a kind that is no {@link ErrorKind}) is a `corrupt-entry`.
 */
export function decodeEntry(at: StepPosition, raw: unknown): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error } {
  const entry = readEntry(at, raw)
  if (entry.seq !== at.seq || entry.name !== at.name) {
    throw new DurableRunError('divergence', {
      runId: at.runId,
      step: at.name,
      reason: `the journal holds step ${quoted(entry.name)} at position ${entry.seq} where this run asks for ${JSON.stringify(at.name)} at position ${at.seq}: the code changed between the crash and the resume`,
    })
  }
  if (entry.ok) return { ok: true, value: entry.value }
  return { ok: false, error: rebuild(at, entry.error) }
}

function corrupt(at: StepPosition, reason: string, cause?: unknown): DurableRunError {
  return new DurableRunError('corrupt-entry', { runId: at.runId, step: at.name, reason: `the journal entry ${reason}`, cause })
}

function readEntry(at: StepPosition, raw: unknown): JournalEntry {
  let data: unknown
  try {
    // An engine's entry is JSON data: one handed back as an object is read once, as the JSON it writes (a getter
    // that throws or answers otherwise on a second read, a proxy, a toJSON: what is checked is what the run gets).
    const text = typeof raw === 'string' ? raw : JSON.stringify(raw)
    data = text === undefined ? undefined : JSON.parse(text)
  } catch (error) {
    throw corrupt(at, typeof raw === 'string' ? 'is not JSON' : `cannot be read as JSON data (${messageOf(error)})`, error)
  }
  const bad = unsafeKey(data, 0)
  if (bad !== undefined) throw corrupt(at, bad)
  if (!isObject(data)) throw corrupt(at, 'is not an object')
  if (data['v'] !== 1) throw corrupt(at, `has version ${shownValue(data['v'])}, not 1`)
  if (!Number.isSafeInteger(data['seq']) || (data['seq'] as number) < 0) throw corrupt(at, 'has no position')
  if (typeof data['name'] !== 'string') throw corrupt(at, 'has no step name')
  if (data['runId'] !== undefined && typeof data['runId'] !== 'string') throw corrupt(at, 'has a run id that is no string')
  if (data['ok'] === true) return data as JournalEntry
  if (data['ok'] !== false || !isObject(data['error'])) throw corrupt(at, 'is neither a success nor a failure')
  return data as JournalEntry
}

/** The failure rebuilt into its class; a failure that cannot be (a kind that is no ErrorKind, a status out of range) is a corrupt entry. */
function rebuild(at: StepPosition, failure: JournaledFailure): Error {
  const raw = failure as unknown as Record<string, unknown>
  if (typeof raw['message'] !== 'string') throw corrupt(at, 'has a failure without a message')
  // encodeFailure cuts the message: a longer one is no entry the port wrote.
  if (raw['message'].length > MAX_JOURNALED_MESSAGE)
    throw corrupt(at, `has a failure message longer than the ${MAX_JOURNALED_MESSAGE} characters the port journals`)
  if (raw['class'] === 'ProviderError') {
    if (!(ERROR_KINDS as readonly unknown[]).includes(raw['kind'])) throw corrupt(at, `has a ProviderError of kind ${shownValue(raw['kind'])}`)
    try {
      // The constructor checks each field (a status out of range, a code that is no string): its refusal is the corruption.
      const options = {
        kind: raw['kind'],
        ...optional('status', raw['status']),
        ...optional('code', raw['code']),
        // Journaled before waits were capped at what a timer holds: the longest wait, still refused by a rule's limit.
        ...optional('retryAfterMs', typeof raw['retryAfterMs'] === 'number' ? longestWait(raw['retryAfterMs']) : raw['retryAfterMs']),
        ...optional('provider', raw['provider']),
      } as ProviderErrorOptions
      return new ProviderError(raw['message'], options)
    } catch (error) {
      throw corrupt(at, `has a ProviderError that cannot be rebuilt (${messageOf(error)})`, error)
    }
  }
  if (raw['class'] !== 'Error' || typeof raw['name'] !== 'string') throw corrupt(at, 'has a failure of no known class')
  if (raw['name'].length > MAX_ERROR_NAME) throw corrupt(at, `has an error name longer than the ${MAX_ERROR_NAME} characters the port journals`)
  const error =
    raw['name'] === 'TypeError' ? new TypeError(raw['message']) : raw['name'] === 'RangeError' ? new RangeError(raw['message']) : new Error(raw['message'])
  if (error.name !== raw['name']) Object.defineProperty(error, 'name', { value: raw['name'], enumerable: false, writable: true, configurable: true })
  return error
}

function optional<K extends string>(key: K, value: unknown): Partial<Record<K, unknown>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, unknown>)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What makes journaled data unsafe to hand to user code: a `__proto__` key, a `constructor` holding a `prototype`, nesting past 256 levels. */
function unsafeKey(value: unknown, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  if (depth > 256) return 'nests deeper than 256 levels'
  if (Array.isArray(value)) {
    for (const item of value) {
      const bad = unsafeKey(item, depth + 1)
      if (bad !== undefined) return bad
    }
    return undefined
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return 'has a "__proto__" key'
    const item = (value as Record<string, unknown>)[key]
    if (key === 'constructor' && typeof item === 'object' && item !== null && Object.hasOwn(item, 'prototype'))
      return 'has a "constructor" key holding a "prototype"'
    const bad = unsafeKey(item, depth + 1)
    if (bad !== undefined) return bad
  }
  return undefined
}
