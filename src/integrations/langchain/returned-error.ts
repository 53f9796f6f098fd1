import { ToolMessage } from '@langchain/core/messages'
import { isErrorValue } from '../../model/error-value.ts'
import { messageOf } from '../../model/message-of.ts'
import { writtenResult } from './written-result.ts'

/** The part of a LangChain tool call request this reads and hands on. */
interface ToolRequest {
  readonly tool?: unknown
  readonly toolCall: { readonly id?: string | undefined; readonly name: string }
}

/**
 * `request` with its tool answering an `Error` it returns (instead of throwing it) as LangChain's
 * ToolNode answers a thrown one: a `ToolMessage` of status `error` reading `RangeError: …\n Please fix
 * your mistakes.`. Left as it is, LangChain writes the result as JSON, and the JSON of an Error is
 * `{}`: the model would read that the call succeeded with nothing. The tool is a view of the
 * caller's (its own `_call` in front, the rest inherited), so the caller's object is never changed;
 * a tool without `_call` (a Runnable as a tool) is handed on as it is. Any other result JSON would
 * lose (a Map, a Set, a cycle) is written as the Agent writes it ({@link writtenResult}).
 */
export function reportingReturnedErrors<R extends ToolRequest>(request: R): R {
  const tool = request.tool as { _call?: unknown } | undefined
  const run = tool?._call
  if (typeof tool !== 'object' || tool === null || typeof run !== 'function') return request
  const { id, name } = request.toolCall
  const view: object = Object.create(tool, {
    _call: {
      async value(this: unknown, ...args: unknown[]): Promise<unknown> {
        const output: unknown = await run.apply(this, args)
        if (!isErrorValue(output)) return writtenResult(output, tool)
        return errorToolMessage(output, { id, name })
      },
    },
  })
  return { ...request, tool: view }
}

/** The `ToolMessage` LangChain's ToolNode answers a tool's error with: status `error`, `RangeError: …\n Please fix your mistakes.`. */
export function errorToolMessage(error: unknown, call: { readonly id?: string | undefined; readonly name: string }): ToolMessage {
  return new ToolMessage({ content: `${errorText(error)}\n Please fix your mistakes.`, tool_call_id: call.id ?? '', name: call.name, status: 'error' })
}

/** `String(error)` as LangChain writes a thrown one (`RangeError: message`; a thrown string as it is), never throwing. */
export function errorText(error: unknown): string {
  try {
    const text: unknown = isErrorValue(error) ? Error.prototype.toString.call(error) : undefined
    if (typeof text === 'string') return text
  } catch {
    // A name or message getter that throws: the message as far as it can be read.
  }
  return messageOf(error)
}
