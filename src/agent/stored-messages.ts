import type { Message } from '../model/message.ts'
import { checkLoadedMessages, formatError } from '../sessions/exchange-format.ts'
import { checkForbiddenKeys } from '../validation/index.ts'

/**
 * The messages a store handed back, checked against the message format (`checkLoadedMessages`), and
 * held to the rule model JSON is held to: no `__proto__` key, no `constructor` holding a `prototype`,
 * no nesting past 256 levels, in a tool call's arguments or anywhere else. The library never stores
 * such a value (arguments holding one are kept as their JSON text), so one is a record edited behind
 * the store: a `SessionFormatError` naming the field, never replayed to a model nor handed to user code
 * (`session.history`, middleware), where a merge would pollute a prototype.
 */
export function checkStoredMessages(conversation: string, messages: readonly unknown[]): readonly Message[] {
  const checked = checkLoadedMessages(conversation, messages)
  for (let i = 0; i < checked.length; i++) {
    const issue = checkForbiddenKeys(checked[i])
    if (issue === undefined) continue
    const field = `messages[${i}]${issue.path.startsWith('[') ? '' : '.'}${issue.path}`
    throw formatError(conversation, { field, expected: `data a model could send (${issue.message})`, got: undefined })
  }
  return checked
}
