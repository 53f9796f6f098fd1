import type { ModelResponse } from '../model/response.ts'
import type { AttemptContext, AttemptResult, Terminal } from './middleware.ts'

// Marks a terminal that answers the provider's bare response rather than `{ response }`.
const BARE: unique symbol = Symbol('reliability-gate.bare-response')

/**
 * A provider call that answers the bare response. The run of stages just outside it wraps the
 * answer in the promise step it takes anyway, where wrapping it here would take one more per attempt
 * (about 170 B: a promise, a reaction and its job). Only the library's own chain calls such a
 * terminal: `compose` hands it as is only to a run of stages, and wraps it for anything else.
 */
export function bareResponseTerminal(call: (ctx: AttemptContext) => Promise<ModelResponse>): Terminal {
  Object.defineProperty(call, BARE, { value: true })
  return call as unknown as Terminal
}

/** True for a terminal made by {@link bareResponseTerminal} (or marked as one by `compose`). */
export function answersBareResponse(terminal: Terminal): boolean {
  return (terminal as Terminal & { readonly [BARE]?: true })[BARE] === true
}

/** `call` marked as answering the bare response (see {@link bareResponseTerminal}). */
export function markedBare(call: (ctx: AttemptContext) => Promise<unknown>): Terminal {
  return bareResponseTerminal(call as (ctx: AttemptContext) => Promise<ModelResponse>)
}

/** The answer of a terminal as a result: wrapped when the terminal answers the bare response. */
export function asResult(answer: unknown, bare: boolean): AttemptResult {
  return bare ? { response: answer as ModelResponse } : (answer as AttemptResult)
}

/** `{ response }`, for a bare answer that must reach something other than a run of stages. */
export function wrapResponse(response: ModelResponse): AttemptResult {
  return { response }
}
