import type { Message } from '../model/message.ts'
import { optionsContract } from '../model/options-contract.ts'
import { nonNegativeInteger } from './option-checks.ts'
import type { RequestAdjustingRule } from './retry-truncated.ts'

/** Options of {@link dropRetryEchoRule}. */
export interface DropRetryEchoOptions {
  /** Characters of each echoed answer kept (0: the echo is dropped, its feedback kept). @default 0 */
  readonly keepChars?: number
}

const DROP_RETRY_ECHO = optionsContract<DropRetryEchoOptions>('dropRetryEchoRule', { keepChars: nonNegativeInteger })

const MARKER = '…[cut]'

/**
 * On `context-overflow` or `payload-too-large` of a retry, sends the next attempt without the echo
 * of the rejected answer (the ephemeral assistant message of the retry tail), or with it cut to
 * `keepChars` characters and a marker; the feedback stays. It matches only while the tail has an
 * echo longer than that, so it never re-sends the same request.
 *
 * @example
 * createGate({ providers, outputSchema, postDecide: [dropRetryEchoRule(), trimWindowRule(), ...strictOutputRules(3)] })
 */
export function dropRetryEchoRule(options: DropRetryEchoOptions = {}): RequestAdjustingRule {
  const keep = DROP_RETRY_ECHO.check(options).keepChars ?? 0
  const isLongEcho = (m: Message): boolean => m.role === 'assistant' && m.ephemeral === true && m.content.length > keep
  return {
    when: function dropRetryEchoWhen(scope) {
      if (scope.errorKind !== 'context-overflow' && scope.errorKind !== 'payload-too-large') return false
      return (scope.attemptTail ?? []).some(isLongEcho)
    },
    then: 'retry',
    failuresOnly: true,
    kind: 'retry-echo-trim',
    label: keep === 0 ? 'retry without the echo of the rejected answer' : `retry with the echo of the rejected answer cut to ${keep} characters`,
    adjustRequest: function dropRetryEcho(_scope, _request, tail) {
      if (!tail.some(isLongEcho)) return {}
      if (keep === 0) return { tail: tail.filter((m) => !isLongEcho(m)) }
      return { tail: tail.map((m) => (isLongEcho(m) ? { ...m, content: m.content.slice(0, keep) + MARKER } : m)) }
    },
  }
}
