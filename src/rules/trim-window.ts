import type { Message } from '../model/message.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import type { RequestAdjustingRule } from './retry-truncated.ts'
import type { ReliabilityScope } from './scope.ts'

/** Options of {@link trimWindowRule}. */
export interface TrimWindowOptions {
  /** Share of the history each retry drops at least (then up to the next user message). @default 0.5 */
  readonly dropFraction?: number
}

const TRIM_WINDOW = optionsContract<TrimWindowOptions>('trimWindowRule', {
  dropFraction: option.where('a number above 0 and below 1', (v) => typeof v === 'number' && v > 0 && v < 1),
})

/**
 * On `context-overflow`, retries with the oldest part of the history dropped: at least
 * `dropFraction` of the messages after any leading system messages, cut at a user message, so a
 * tool call is never parted from its result and the conversation still starts with the user. It
 * matches while such a cut exists (each retry cuts the request of the attempt before); once the
 * history is down to its last user turn a later rule (or the fail-fast of kind
 * `context-overflow`) decides. The caller's messages and the session's history are never changed:
 * the trimmed list is the next attempts' only.
 *
 * @example
 * createGate({ providers, postDecide: [trimWindowRule(), retryTransient()] })
 */
export function trimWindowRule(options: TrimWindowOptions = {}): RequestAdjustingRule {
  const fraction = TRIM_WINDOW.check(options).dropFraction ?? 0.5
  const trimmed = (messages: readonly Message[]): readonly Message[] | undefined => trimAtUserTurn(messages, fraction)
  const sent = (scope: ReliabilityScope) => scope.attemptRequest ?? scope.request
  return {
    when: function trimWindowWhen(scope) {
      return scope.errorKind === 'context-overflow' && trimmed(sent(scope).messages) !== undefined
    },
    then: 'retry',
    failuresOnly: true,
    kind: 'context-trim',
    label: `retry a context overflow with the oldest ${Math.round(fraction * 100)}% of the history dropped (cut at a user message)`,
    adjustRequest: function trimWindow(_scope, request) {
      const messages = trimmed(request.messages)
      return messages === undefined ? {} : { messages }
    },
  }
}

/**
 * `messages` without their oldest part: leading system messages kept, then from the first user
 * message at or after `fraction` of the rest (else the last user message past the start);
 * `undefined` when no such cut drops anything.
 */
export function trimAtUserTurn(messages: readonly Message[], fraction: number): readonly Message[] | undefined {
  let start = 0
  while (start < messages.length && messages[start]?.role === 'system') start++
  const rest = messages.length - start
  if (rest < 2) return undefined
  const from = start + Math.max(1, Math.ceil(rest * fraction))
  let cut = -1
  for (let i = from; i < messages.length; i++) {
    if (messages[i]?.role === 'user') {
      cut = i
      break
    }
  }
  if (cut === -1) {
    for (let i = Math.min(from, messages.length) - 1; i > start; i--) {
      if (messages[i]?.role === 'user') {
        cut = i
        break
      }
    }
  }
  if (cut <= start) return undefined
  return messages.slice(0, start).concat(messages.slice(cut))
}
