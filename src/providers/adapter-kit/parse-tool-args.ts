import { jsonTextOf } from '../../model/json-text-of.ts'
import { findForbiddenKey } from '../../validation/json/forbidden-keys.ts'
import { parseJsonSafe } from '../../validation/json/parse-json-safe.ts'

/**
 * Parses a tool call's argument string with the library's safe parser. Arguments it refuses (not
 * JSON, too long or deep, or holding a `__proto__` key or a `constructor` key holding a `prototype`) are kept as the
 * raw string: the agent's tool-argument validation parses that string again, reports why it was
 * refused and feeds that back to the model, so no such key ever reaches a tool. Arguments that are
 * already a value (a proxy that decoded them) are never a crash: an object is checked like
 * {@link checkToolInput}, anything else is handed on as its JSON text.
 *
 * @example
 * parseToolArgs('{"id": 1}')            // { id: 1 }
 * parseToolArgs('{"id": ')              // '{"id": '
 * parseToolArgs('{"__proto__": {"x": 1}}') // '{"__proto__": {"x": 1}}'
 */
export function parseToolArgs(raw: unknown): unknown {
  if (raw === null || raw === undefined) return {}
  // A proxy that decoded the arguments: an object is checked like an SDK's parsed input, anything else goes on as its JSON text.
  if (typeof raw !== 'string') return typeof raw === 'object' && !Array.isArray(raw) ? checkToolInput(raw) : jsonTextOf(raw)
  if (raw.trim() === '') return {}
  const parsed = parseJsonSafe(raw)
  return parsed.ok ? parsed.value : raw
}

/**
 * Tool arguments an SDK already parsed (Anthropic's `tool_use.input`): kept as they are, unless
 * they hold a `__proto__` key or a `constructor` key holding a `prototype`, in which case they are handed on as their
 * JSON text, refused by the agent's validation like any such string.
 */
export function checkToolInput(input: unknown): unknown {
  return findForbiddenKey(input) === undefined ? input : jsonTextOf(input)
}
