import { DurableRunError } from '../durable/durable-run-error.ts'
import { messageOf } from '../model/message-of.ts'
import { keepingData } from '../validation/index.ts'

/**
 * A tool's result as its durable step journals it: the JSON text it writes (`{ resultJson }`), not the
 * object. A result is the tool's own data, handed on as it is without a port, a key `__proto__` or a
 * `constructor` holding a `prototype` included (a parsed API answer may hold one); journaled as an
 * object, the port would refuse the step as unsafe data, and the model would hear that a tool failed
 * that ran (and might call it again). The text is parsed again when the step answers, giving what
 * `JSON.parse` gives (such a key an own data property, never a prototype). `undefined` (or what JSON
 * writes nothing for) stays `undefined`; a Map, a Set or an opaque instance is journaled as the model
 * was sent it (its entries, its values, its class: `keepingData`), so a replay sends the same text; a
 * result JSON cannot write (a BigInt, a cycle) fails the step with a `TypeError`, as before.
 */
export function journaledResult(tool: string, result: unknown): { readonly resultJson: string } | undefined {
  let text: string | undefined
  try {
    // A Map, a Set or an opaque instance as the model was sent it (never `{}`), so a replay sends the same.
    text = JSON.stringify(result, keepingData)
  } catch (error) {
    throw new TypeError(`the result of tool ${JSON.stringify(tool)} cannot be journaled as JSON: ${messageOf(error)}`)
  }
  return text === undefined ? undefined : { resultJson: text }
}

/**
 * The result a tool step answered: a journaled `{ resultJson }` parsed back; anything else as it is (an
 * entry journaled before results were journaled as text, or a plain value your port answers). Text that
 * is not JSON is no entry the port wrote: a `corrupt-entry`.
 */
export function resultFromJournal(value: unknown, at: { readonly runId: string; readonly step: string }): unknown {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'resultJson') || Object.keys(value).length !== 1) return value
  const text = (value as { readonly resultJson: unknown }).resultJson
  try {
    if (typeof text !== 'string') throw new TypeError('not a string')
    return JSON.parse(text) as unknown
  } catch (cause) {
    throw new DurableRunError('corrupt-entry', {
      runId: at.runId,
      step: at.step,
      reason: `the journal entry holds a tool result whose text is not JSON (${messageOf(cause)})`,
      cause,
    })
  }
}
