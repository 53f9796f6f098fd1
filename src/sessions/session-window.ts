import type { Message } from '../model/message.ts'
import { shownValue } from '../model/describe-value.ts'
import { messageOf } from '../model/message-of.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { isThenable } from '../model/user-code.ts'

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
  /**
   * Tokens of one message, answered synchronously: a throw, a promise or anything but a finite
   * number of 0 or more fails the run with a `ReliabilityFailFastError` of kind `window-failed`
   * (its cause a `WindowEstimateError`) before anything is sent, never a history read as 0 tokens
   * and sent whole.
   * @default about one token per 4 characters of its content and tool calls
   */
  readonly estimateTokens?: (message: Message) => number
}

/** The `window` option (`agent.session(id, { window })`), declared once: a misspelt `maxMesages` is refused with "did you mean". */
export const WINDOW_OPTIONS = optionsContract<SessionWindow>('window', {
  maxMessages: option.integer(1),
  maxTokens: option.integer(1),
  estimateTokens: option.function(),
})

/** A window's `estimateTokens` threw or answered something that is not a number of tokens (a promise, `NaN`, `-1`). */
export class WindowEstimateError extends TypeError {
  override readonly name = 'WindowEstimateError'
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
  }
}

/** What `estimate` says `message` (at `index`) costs, checked: a number of tokens or a {@link WindowEstimateError}. */
function tokensOf(estimate: (message: Message) => number, message: Message, index: number): number {
  let tokens: unknown
  try {
    tokens = estimate(message)
  } catch (error) {
    throw new WindowEstimateError(`window.estimateTokens threw on history message ${index}: ${messageOf(error)}`, error)
  }
  if (typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0) return tokens
  if (isThenable(tokens)) {
    // A late rejection of the promise must not become an unhandled rejection.
    Promise.resolve(tokens).catch(ignore)
    throw new WindowEstimateError(`window.estimateTokens must answer a number synchronously, got a promise (history message ${index})`)
  }
  throw new WindowEstimateError(`window.estimateTokens must answer a finite number of tokens, 0 or more, got ${shownValue(tokens)} (history message ${index})`)
}

function ignore(): void {}

const roughTokens = (message: Message): number => {
  let chars = message.content.length
  for (const call of message.toolCalls ?? []) chars += call.name.length + (JSON.stringify(call.args) ?? '').length
  return Math.ceil(chars / 4) + 4
}

/** Checks a window option: returns it, or throws a TypeError/RangeError naming `window` and the key (see {@link WINDOW_OPTIONS}). */
export function checkWindow(window: unknown): SessionWindow | undefined {
  return window === undefined ? undefined : WINDOW_OPTIONS.check(window as SessionWindow)
}

/**
 * The part of `history` a request carries under `window` (the history itself when it fits). Walks
 * back from the newest message, so a 10,000-message conversation costs one pass over what is kept.
 * Throws a {@link WindowEstimateError} when the window's `estimateTokens` fails.
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
    tokens += tokensOf(estimate, message, i)
    if (history.length - i > maxMessages || tokens > maxTokens) break
    if (message.role === 'user') start = i
  }
  if (start === head) return history
  return head === 0 ? history.slice(start) : history.slice(0, head).concat(history.slice(start))
}
