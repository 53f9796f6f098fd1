import { isRecord } from '../../model/is-record.ts'
import { jsonTextOf } from '../../model/json-text-of.ts'
import { parseJsonSafe } from '../../validation/json/parse-json-safe.ts'

/**
 * The key under which tool arguments that are not a JSON object (unparseable text, an array, a
 * number) are echoed to wires whose tool-call input must be an object (Anthropic's `tool_use.input`,
 * AI SDK prompts): the model sees exactly what it sent, so feedback saying "not valid JSON" matches
 * what it reads, instead of an empty `{}` it never wrote.
 */
export const RAW_ARGUMENTS_KEY = '_raw_arguments'

/**
 * Tool arguments as a JSON object for the wire: an object as it is, a JSON text of an object parsed
 * (safely), missing or blank arguments as `{}`, anything else as sent under {@link RAW_ARGUMENTS_KEY}.
 *
 * @example
 * objectToolInput('{"orderId": "42"}') // { orderId: '42' }
 * objectToolInput('{"orderId": ')      // { _raw_arguments: '{"orderId": ' }
 */
export function objectToolInput(args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) return {}
  if (typeof args === 'string') {
    if (args.trim() === '') return {}
    const parsed = parseJsonSafe(args)
    return parsed.ok && isRecord(parsed.value) ? parsed.value : { [RAW_ARGUMENTS_KEY]: args }
  }
  if (isRecord(args)) return args
  return { [RAW_ARGUMENTS_KEY]: jsonTextOf(args) }
}
