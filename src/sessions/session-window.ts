import type { Message } from '../model/message.ts'
import { typeName } from '../model/describe-value.ts'
import { isRecord } from '../model/is-record.ts'

/**
 * How much of a long conversation goes into a request: the last `maxMessages` messages and/or the
 * last `maxTokens` tokens. The cut is always at the start of a user message, so an assistant's tool
 * calls are never separated from their results; leading system messages are always kept. The
 * stored history stays whole.
 */
export interface SessionWindow {
  /** At most this many messages of history (the system messages kept at its head not counted). */
  readonly maxMessages?: number | undefined
  /** At most about this many tokens of history. */
  readonly maxTokens?: number | undefined
  /** Tokens of one message. @default about one token per 4 characters of its content and tool calls */
  readonly estimateTokens?: (message: Message) => number
}

const roughTokens = (message: Message): number => {
  let chars = message.content.length
  for (const call of message.toolCalls ?? []) chars += call.name.length + (JSON.stringify(call.args) ?? '').length
  return Math.ceil(chars / 4) + 4
}

/** Checks a window option: returns it, or throws a TypeError/RangeError naming `where`. */
export function checkWindow(window: unknown, where: string): SessionWindow | undefined {
  if (window === undefined) return undefined
  if (!isRecord(window)) throw new TypeError(`${where}: window must be { maxMessages?, maxTokens?, estimateTokens? }, got ${typeName(window)}`)
  for (const key of ['maxMessages', 'maxTokens'] as const) {
    const value = window[key]
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 1)) {
      throw new RangeError(`${where}: window.${key} must be a positive integer, got ${typeName(value)}`)
    }
  }
  if (window['estimateTokens'] !== undefined && typeof window['estimateTokens'] !== 'function') {
    throw new TypeError(`${where}: window.estimateTokens must be a function, got ${typeName(window['estimateTokens'])}`)
  }
  return window as SessionWindow
}

/**
 * The part of `history` a request carries under `window` (the history itself when it fits). Walks
 * back from the newest message, so a 10,000-message conversation costs one pass over what is kept.
 */
export function windowHistory(history: readonly Message[], window: SessionWindow | undefined): readonly Message[] {
  if (window === undefined) return history
  const { maxMessages = Number.POSITIVE_INFINITY, maxTokens = Number.POSITIVE_INFINITY } = window
  const estimate = window.estimateTokens ?? roughTokens
  let head = 0
  while (head < history.length && history[head]?.role === 'system') head++
  if (history.length - head <= maxMessages && maxTokens === Number.POSITIVE_INFINITY) return history
  // `start` is the oldest message kept: the last user message from which everything newer fits.
  let start = history.length
  let tokens = 0
  for (let i = history.length - 1; i >= head; i--) {
    const message = history[i] as Message
    tokens += Number(estimate(message)) || 0
    if (history.length - i > maxMessages || tokens > maxTokens) break
    if (message.role === 'user') start = i
  }
  if (start === head) return history
  return head === 0 ? history.slice(start) : history.slice(0, head).concat(history.slice(start))
}
