import type { ToolMessage } from '@langchain/core/messages'
import { bubblesUp } from './bubbles-up.ts'
import { errorToolMessage } from './returned-error.ts'

/** The tool call a thrown error is answered for. */
interface ThrowingCall {
  readonly id?: string | undefined
  readonly name: string
}

/**
 * The tool's result, or what LangChain's ToolNode answers for a tool that throws when no middleware
 * wraps it (`handleToolErrors`' default): a `ToolMessage` of status `error` reading `RangeError: …\n
 * Please fix your mistakes.`, and the run goes on. LangChain keeps that only for a tool run with no
 * `wrapToolCall` in front: through one, the tool's error would end the whole run. What LangChain
 * itself never answers is thrown as it came: a LangGraph interrupt (`bubblesUp`), an error once the
 * run's `signal` aborted, another middleware's `MiddlewareError`, and a `ToolInvocationError` (bad
 * input the ToolNode answers in its own words).
 */
export async function answeringThrownErrors<T>(run: () => T | Promise<T>, call: ThrowingCall, signal: AbortSignal | undefined): Promise<T | ToolMessage> {
  try {
    return await run()
  } catch (error) {
    if (bubblesUp(error) || signal?.aborted === true || branded(error)) throw error
    return errorToolMessage(error, call)
  }
}

/** LangChain's own agent errors (`MiddlewareError`, `ToolInvocationError`), by the brand its `isInstance` reads. */
function branded(error: unknown): boolean {
  try {
    const brand = typeof error === 'object' && error !== null ? (error as { '~brand'?: unknown })['~brand'] : undefined
    return brand === 'MiddlewareError' || brand === 'ToolInvocationError'
  } catch {
    return false
  }
}
