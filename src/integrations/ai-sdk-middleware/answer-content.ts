import type { LanguageModelV4Content } from '@ai-sdk/provider'
import type { ModelRequest } from '../../model/request.ts'
import type { ToolCall } from '../../model/tool-call.ts'

/**
 * The model's content parts with the text the gate accepted: as they came when the gate kept the
 * text, else (the output guards redacted it) that text in place of the text parts, so nothing a
 * guard redacted reaches the AI SDK.
 */
export function answerText(content: LanguageModelV4Content[], accepted: string): LanguageModelV4Content[] {
  const text = content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
  if (text === accepted) return content
  const others = content.filter((part) => part.type !== 'text')
  return accepted === '' ? others : [{ type: 'text', text: accepted }, ...others]
}

/**
 * The answer's content with each settled tool call's final arguments: the k-th tool call the model
 * made (not one its provider ran) takes the k-th settled call's, by position, never by id, so a call
 * id the model repeats in one answer never hands one call's arguments to the other.
 */
export function withArgs(content: readonly LanguageModelV4Content[], calls: readonly ToolCall[]): LanguageModelV4Content[] {
  let next = 0
  return content.map((part) => {
    if (part.type !== 'tool-call' || part.providerExecuted === true) return part
    const call = calls[next++]
    return call === undefined ? part : { ...part, input: inputText(call.args) }
  })
}

/** Tool arguments as the AI SDK's `input` text: as the model sent them when they are text. */
export function inputText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {})
}

/**
 * The accepted answer's content as the AI SDK must read it: after a native request (whose compiled
 * schema may reshape values: OpenAI strict sends `null` for an absent property), the text is the
 * validated value, mapped back, so `Output.object` parses the schema's own shape; otherwise unchanged.
 */
export function inSchemaShape(content: LanguageModelV4Content[], request: ModelRequest | undefined, value: unknown): LanguageModelV4Content[] {
  if (request?.outputMode !== 'native' || request.nativeSchema === undefined || value === undefined || typeof value === 'string') return content
  const text = JSON.stringify(value)
  const others = content.filter((part) => part.type !== 'text')
  return [{ type: 'text', text }, ...others]
}
