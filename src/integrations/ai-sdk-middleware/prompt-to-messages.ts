import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import type { Message } from '../../model/message.ts'

/**
 * A text view of an AI SDK prompt, for the gate's scope, rules and feedback echo. The wire keeps
 * the original prompt (files, provider options and all); only the gate's ephemeral tail is added.
 */
export function promptToMessages(prompt: LanguageModelV4Prompt): { system: string | undefined; messages: Message[] } {
  const system: string[] = []
  const messages: Message[] = []
  for (const m of prompt) {
    if (m.role === 'system') system.push(m.content)
    else if (m.role === 'user') messages.push({ role: 'user', content: textOf(m.content) })
    else if (m.role === 'assistant') {
      const toolCalls = m.content.flatMap((p) => (p.type === 'tool-call' ? [{ id: p.toolCallId, name: p.toolName, args: p.input }] : []))
      messages.push({ role: 'assistant', content: textOf(m.content), ...(toolCalls.length > 0 ? { toolCalls } : {}) })
    } else {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue
        const output = p.output
        const isError = output.type === 'error-text' || output.type === 'error-json'
        const content = 'value' in output ? (typeof output.value === 'string' ? output.value : (JSON.stringify(output.value) ?? '')) : ''
        messages.push({ role: 'tool', content, toolCallId: p.toolCallId, toolName: p.toolName, ...(isError ? { isError } : {}) })
      }
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages }
}

function textOf(parts: readonly { readonly type: string; readonly text?: string }[]): string {
  return parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('')
}
