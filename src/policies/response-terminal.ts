import type { ModelResponse } from '../model/response.ts'
import type { AttemptContext, AttemptResult, Terminal } from './middleware.ts'

// Marks a terminal that answers the provider's bare response rather than `{ response }`.
const BARE: unique symbol = Symbol('reliability-gate.bare-response')

/**
 * A provider call that answers the bare response. The run of stages just outside it wraps the
 * answer in the promise step it takes anyway, where wrapping it here would take one more per attempt
 * (about 170 B: a promise, a reaction and its job). Only the library's own chain calls such a
 * terminal: `compose` hands it as is only to a run of stages, and {@link resultTerminal} wraps it for
 * anything else.
 */
export function bareResponseTerminal(call: (ctx: AttemptContext) => Promise<unknown>): Terminal {
  Object.defineProperty(call, BARE, { value: true })
  return call as unknown as Terminal
}

/** True for a terminal made by {@link bareResponseTerminal}. */
export function answersBareResponse(terminal: Terminal): boolean {
  return (terminal as Terminal & { readonly [BARE]?: true })[BARE] === true
}

/** `terminal` answering `{ response }`: itself, or wrapping one that answers the bare response. */
export function resultTerminal(terminal: Terminal): Terminal {
  if (!answersBareResponse(terminal)) return terminal
  return (ctx) => terminal(ctx).then(wrapResponse as (response: unknown) => AttemptResult)
}

/** The answer of a terminal as a result: wrapped when the terminal answers the bare response. */
export function asResult(answer: unknown, bare: boolean): AttemptResult {
  return bare ? { response: answer as ModelResponse } : (answer as AttemptResult)
}

/** `{ response }`. */
export function wrapResponse(response: ModelResponse): AttemptResult {
  return { response }
}
