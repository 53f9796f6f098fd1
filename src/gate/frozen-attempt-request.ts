import { type FrozenSpecs, frozenMessages, frozenSpecs } from '../model/frozen-copy.ts'
import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import { frozenWithTail } from './ephemeral-tail.ts'

/** The frozen copies of a run's base messages (and of its tools and schemas), and the request they were copied from. */
interface FrozenBase {
  readonly source: readonly Message[]
  readonly frozen: readonly Message[]
  readonly specsOf: ModelRequest
  readonly specs: FrozenSpecs
  /** The frozen base request itself (see {@link frozenAttemptBase}), once asked for, and the base it copies. */
  bare?: { readonly of: ModelRequest; readonly request: ModelRequest }
}

// Per run, not per request: a caller may edit its history between two runs of the same request, and
// each run sends what the history holds when it starts.
const frozenBases = new WeakMap<object, FrozenBase>()

/**
 * The request of the run's next attempt as user code receives it (middleware, `attempt_start`
 * listeners): `frozenRequest(withTail(run.base, run.tail))`, with the base messages copied and frozen
 * once per run instead of once per attempt. A retry then copies only its tail (and joins lazily past
 * a few dozen messages), so it costs the same for 10 or 10,000 messages of history.
 */
export function frozenAttemptRequest(run: { readonly base: ModelRequest; readonly tail: readonly Message[] }): ModelRequest {
  const base = run.base
  const memo = frozenBaseOf(run)
  // The caller's tools and schemas go as frozen copies: freezing a payload that holds them never freezes the caller's own.
  if (run.tail.length === 0) return Object.freeze({ ...base, messages: memo.frozen, ...memo.specs })
  return frozenWithTail({ ...base, messages: memo.frozen, ...memo.specs }, frozenMessages(run.tail))
}

/**
 * The run's base request as a user's link receives it (`ctx.baseRequest`): the frozen copy, made once
 * per base, so an edit in place throws instead of reaching the caller's conversation (the base is the
 * caller's own request when the run changes nothing of it).
 */
export function frozenAttemptBase(run: { readonly base: ModelRequest }): ModelRequest {
  const base = run.base
  const memo = frozenBaseOf(run)
  if (memo.bare?.of !== base) memo.bare = { of: base, request: Object.freeze({ ...base, messages: memo.frozen, ...memo.specs }) }
  return memo.bare.request
}

/** The frozen copies of the messages, tools and schemas of `run`'s base, copied again when the base holds others. */
function frozenBaseOf(run: { readonly base: ModelRequest }): FrozenBase {
  const base = run.base
  let memo = frozenBases.get(run)
  if (memo?.source !== base.messages || !sameSpecs(memo.specsOf, base)) {
    memo = { source: base.messages, frozen: frozenMessages(base.messages), specsOf: base, specs: frozenSpecs(base) }
    frozenBases.set(run, memo)
  }
  return memo
}

/** Whether two requests hold the same tools and schemas (the memo's copies still stand). */
function sameSpecs(a: ModelRequest, b: ModelRequest): boolean {
  return a.tools === b.tools && a.responseSchema === b.responseSchema && a.nativeSchema === b.nativeSchema
}
