import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ToolCall } from '../model/tool-call.ts'
import type { Usage } from '../model/usage.ts'

/** Characters per token of the estimate used when a provider reports no (usable) token count. */
export const CHARS_PER_TOKEN = 4

/** What an answer is estimated from: its text and its tool calls. */
export interface AnswerText {
  readonly content: string
  readonly toolCalls: readonly ToolCall[]
}

/**
 * `usage` with every count a finite, non-negative number. A count that is missing or unusable
 * (`undefined`, `NaN`, `Infinity`, negative, not a number) is never taken as 0, which would
 * silently switch budgets off: input tokens are estimated from the request and output tokens from
 * the answer, at {@link CHARS_PER_TOKEN} characters per token, and the usage is marked
 * `estimated`. Unusable cache counts become 0 (nothing to estimate them from), also marked.
 * A usage that is already sound is returned as it is.
 */
export function finiteUsage(usage: unknown, request: ModelRequest | undefined, answer: AnswerText | undefined): Usage {
  if (isSoundUsage(usage)) return usage
  const u = typeof usage === 'object' && usage !== null ? (usage as Partial<Record<keyof Usage, unknown>>) : undefined
  const input = u?.inputTokens
  const output = u?.outputTokens
  const cacheRead = u?.cacheReadTokens
  const cacheWrite = u?.cacheWriteTokens
  const clean: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: isTokenCount(input) ? input : request === undefined ? 0 : estimateTokens(requestChars(request)),
    outputTokens: isTokenCount(output) ? output : answer === undefined ? 0 : estimateTokens(answerChars(answer)),
    estimated: true,
  }
  if (cacheRead !== undefined) clean.cacheReadTokens = isTokenCount(cacheRead) ? cacheRead : 0
  if (cacheWrite !== undefined) clean.cacheWriteTokens = isTokenCount(cacheWrite) ? cacheWrite : 0
  return clean
}

/** Whether every count of `usage` is a finite, non-negative number (nothing to estimate). */
export function isSoundUsage(usage: unknown): usage is Usage {
  if (typeof usage !== 'object' || usage === null) return false
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = usage as Partial<Record<keyof Usage, unknown>>
  return (
    isTokenCount(inputTokens) &&
    isTokenCount(outputTokens) &&
    (cacheReadTokens === undefined || isTokenCount(cacheReadTokens)) &&
    (cacheWriteTokens === undefined || isTokenCount(cacheWriteTokens))
  )
}

/** Tokens of `chars` characters, by the {@link CHARS_PER_TOKEN} estimate. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

/** Characters a request sends: the system prompt and every message with its tool calls. */
export function requestChars(request: ModelRequest): number {
  let n = typeof request.system === 'string' ? request.system.length : 0
  for (const m of request.messages) n += messageChars(m)
  return n
}

/** Characters of an answer: its text and the JSON of its tool calls' arguments. */
export function answerChars(answer: AnswerText): number {
  return textLength(answer.content) + callsChars(answer.toolCalls)
}

function messageChars(m: Message): number {
  return textLength(m.content) + (m.toolCalls === undefined ? 0 : callsChars(m.toolCalls))
}

function callsChars(calls: readonly ToolCall[]): number {
  let n = 0
  for (const call of calls) n += typeof call.args === 'string' ? call.args.length : jsonLength(call.args)
  return n
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0
  } catch {
    return 0
  }
}

function textLength(text: unknown): number {
  return typeof text === 'string' ? text.length : 0
}

/** A usable token count: a finite number, 0 or above. */
export function isTokenCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0
}
