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
  /** The frozen copy of `specsOf` itself (a link's `ctx.baseRequest`, a rule's `scope.attemptRequest`), made when first asked for. */
  view: ModelRequest | undefined
}

/** What of a run these copies read: its base request (the caller's, with the provider's model) and its tail. */
interface RunBase {
  readonly base: ModelRequest
  readonly tail: readonly Message[]
}

// Per run, not per request: a caller may edit its history between two runs of the same request, and
// each run sends what the history holds when it starts.
const frozenBases = new WeakMap<object, FrozenBase>()
const frozenCallers = new WeakMap<object, ModelRequest>()
// Each frozen copy of a caller's request (a scope's `request`) to the caller's own object.
const callerOf = new WeakMap<ModelRequest, ModelRequest>()

/**
 * The request of the run's next attempt as user code receives it (middleware, `attempt_start`
 * listeners): `frozenRequest(withTail(run.base, run.tail))`, with the base messages copied and frozen
 * once per run instead of once per attempt. A retry then copies only its tail (and joins lazily past
 * a few dozen messages), so it costs the same for 10 or 10,000 messages of history.
 */
export function frozenAttemptRequest(run: RunBase): ModelRequest {
  const base = run.base
  const memo = frozenBase(run, base)
  // The caller's tools and schemas go as frozen copies: freezing a payload that holds them never freezes the caller's own.
  if (run.tail.length === 0) return Object.freeze({ ...base, messages: memo.frozen, ...memo.specs })
  return frozenWithTail({ ...base, messages: memo.frozen, ...memo.specs }, frozenMessages(run.tail))
}

/**
 * The run's base request as a user's link receives it (`ctx.baseRequest`): the frozen copy, made once
 * per base, so an edit in place throws instead of reaching the caller's conversation (the base is the
 * caller's own request when the run changes nothing of it).
 */
export function frozenAttemptBase(run: Pick<RunBase, 'base'>): ModelRequest {
  return frozenBaseRequest(run, run.base)
}

/**
 * `request` (the run's base request, or one made from it for another provider) as a rule or a link
 * receives it: a frozen copy whose messages are the run's frozen base messages when it holds the same
 * array (copied once per run), so user code can change neither the caller's conversation nor what is sent.
 */
export function frozenBaseRequest(run: object, request: ModelRequest): ModelRequest {
  const memo = frozenBase(run, request)
  if (memo.specsOf === request) return (memo.view ??= Object.freeze({ ...request, messages: memo.frozen, ...memo.specs }))
  return Object.freeze({ ...request, messages: memo.frozen, ...memo.specs })
}

/**
 * The caller's request of the run as a rule's scope shows it (`scope.request`): a frozen copy made
 * once per run, sharing the frozen base messages when the run still sends the caller's history.
 */
export function frozenCallerRequest(run: { readonly request: ModelRequest; readonly base: ModelRequest }): ModelRequest {
  let copy = frozenCallers.get(run)
  if (copy === undefined) {
    const request = run.request
    const messages = run.base.messages === request.messages ? frozenBase(run, run.base).frozen : frozenMessages(request.messages)
    copy = Object.freeze({ ...request, messages, ...frozenSpecs(request) })
    frozenCallers.set(run, copy)
    callerOf.set(copy, request)
  }
  return copy
}

/** The caller's own request a scope's frozen `request` was copied from (the agent finds its gate call by it); `undefined` for any other object. */
export function callerRequestOf(copy: ModelRequest): ModelRequest | undefined {
  return callerOf.get(copy)
}

/** The run's memo of `request`'s messages, tools and schemas, made again when the run sends another array or other specs. */
function frozenBase(run: object, request: ModelRequest): FrozenBase {
  let memo = frozenBases.get(run)
  if (memo?.source !== request.messages || !sameSpecs(memo.specsOf, request)) {
    memo = { source: request.messages, frozen: frozenMessages(request.messages), specsOf: request, specs: frozenSpecs(request), view: undefined }
    frozenBases.set(run, memo)
  }
  return memo
}

/** Whether two requests hold the same tools and schemas (the memo's copies still stand). */
function sameSpecs(a: ModelRequest, b: ModelRequest): boolean {
  return a.tools === b.tools && a.responseSchema === b.responseSchema && a.nativeSchema === b.nativeSchema
}
