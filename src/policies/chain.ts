import { callAsPromise } from '../model/call-as-promise.ts'
import { ProviderError } from '../model/provider-error.ts'
import { sendProblem } from '../model/request-problem.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ChainAttempt, ResponseCall } from './chain-attempt.ts'
import type { AttemptContext, AttemptResult, Middleware, Next } from './middleware.ts'
import type { Stage } from './stage.ts'

/**
 * A compiled attempt chain: takes one attempt into every link around `call` and answers the
 * innermost answer (the provider's, or what the user's links made of it), at once or as a promise;
 * the caller takes it out through the stages with `attempt.leave` (or `attempt.failOpen`).
 */
export type Chain<A extends ChainAttempt = ChainAttempt> = (attempt: A, call: ResponseCall) => unknown

/**
 * Compiles the attempt chain once, when the gate is built: the library's stages, outermost first,
 * then the user's middleware around the provider call. With no middleware the stages call the
 * provider directly. A user's link gets a guarded `next` per attempt: called twice it rejects the
 * second time (an attempt calls its provider once), with something that is not a request (an object
 * with a `messages` array) or one the request check refuses, it fails the attempt with a `TypeError`
 * naming the link. Whoever calls on: once the attempt has settled that is a `TypeError`, once its signal aborted it rejects with the
 * abort, so no provider call starts after its run let go.
 */
export function compileChain<A extends ChainAttempt>(stages: readonly Stage<unknown, A>[], middleware: readonly Middleware[]): Chain<A> {
  const list = stages.slice() as readonly Stage<unknown, ChainAttempt>[]
  const stops = list.some((stage) => stage.stops === true)
  const links = middleware.map((link, i) => ({ link, name: linkName(link, i) }))
  if (links.length === 0) return (attempt, call) => attempt.runChain(list, call, stops)
  return (attempt, call) => attempt.runChain(list, (ctx, own) => throughLinks(links, own, ctx, call), stops)
}

interface UserLink {
  readonly link: Middleware
  readonly name: string
}

/** The user's links around `call`, hono-style: each `next` enters the following one; the innermost calls the provider. */
function throughLinks(links: readonly UserLink[], attempt: ChainAttempt, ctx: AttemptContext, call: ResponseCall): Promise<ModelResponse> {
  const dispatch = (i: number, current: AttemptContext): Promise<AttemptResult> => {
    if (i === links.length) return provided(call, current, attempt)
    const { link, name } = links[i] as UserLink
    const refused = refusal(attempt, current.request, `the link ${name} was entered`)
    if (refused !== undefined) return Promise.reject(refused)
    let called = false
    const next: Next = (request?: ModelRequest) => {
      const who = `middleware ${name}`
      if (called) return Promise.reject(new TypeError(`${who} called next() more than once in attempt ${current.attempt}`))
      called = true
      if (request !== undefined && !isRequest(request))
        return Promise.reject(new TypeError(`${who} called next() with something that is not a request (an object with a messages array)`))
      const unsendable = request === undefined || request === current.request ? undefined : sendProblem(request)
      if (unsendable !== undefined) return Promise.reject(new TypeError(`${who} called next() with a request that cannot be sent: ${unsendable}`))
      const stopped = refusal(attempt, current.request, `${who} called next()`)
      if (stopped !== undefined) return Promise.reject(stopped)
      return dispatch(i + 1, request === undefined || request === current.request ? current : Object.freeze({ ...current, request }))
    }
    // A link that throws synchronously fails its attempt like one that rejects.
    return callAsPromise(link, current, next)
  }
  return dispatch(0, userContext(ctx)).then((result) => responseIn(result, ctx.provider))
}

/** The context a user's link sees: the attempt's fields, frozen, in an object of its own (an edit in place throws). */
function userContext(ctx: AttemptContext): AttemptContext {
  return Object.freeze({
    runId: ctx.runId,
    attempt: ctx.attempt,
    request: ctx.request,
    baseRequest: ctx.baseRequest,
    provider: ctx.provider,
    providerIdx: ctx.providerIdx,
    model: ctx.model,
    metadata: ctx.metadata,
    turn: ctx.turn,
  })
}

/** The provider's answer as a user's link receives it, `{ response }`; refused once the attempt settled or aborted. */
function provided(call: ResponseCall, ctx: AttemptContext, attempt: ChainAttempt): Promise<AttemptResult> {
  const refused = refusal(attempt, ctx.request, 'the provider was called')
  if (refused !== undefined) return Promise.reject(refused)
  return callAsPromise(call, ctx, attempt).then(wrapResponse)
}

function wrapResponse(response: ModelResponse): AttemptResult {
  return { response }
}

/** The response a user's link answered: its `response` field, read once (the meter checks its shape). */
function responseIn(result: AttemptResult, provider: string): ModelResponse {
  try {
    return (typeof result === 'object' && result !== null ? result.response : undefined) as ModelResponse
  } catch {
    throw new ProviderError(`provider "${provider}" answered with a malformed response: its fields cannot be read`, { kind: 'malformed-response', provider })
  }
}

/** Why `what` may not happen in `attempt` (with `request`): a `TypeError` once it settled, the abort's error once it aborted. */
function refusal(attempt: ChainAttempt, request: ModelRequest, what: string): unknown {
  if (attempt.closed) return new TypeError(`${what} after attempt ${attempt.attempt} had settled`)
  return attempt.abortedWhy(request)
}

function isRequest(value: unknown): boolean {
  try {
    return typeof value === 'object' && value !== null && Array.isArray((value as { messages?: unknown }).messages)
  } catch {
    return false
  }
}

function linkName(link: Middleware, i: number): string {
  try {
    return typeof link.name === 'string' && link.name !== '' ? printable(link.name.slice(0, 100)) : `#${i}`
  } catch {
    return `#${i}`
  }
}

/** A name as shown in an error: no control or line-breaking character that could forge a log line. */
function printable(name: string): string {
  let out = ''
  for (const ch of name) {
    const code = ch.codePointAt(0) as number
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 ? '?' : ch
  }
  return out
}
