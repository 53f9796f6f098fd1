/**
 * Parses a tool call's argument string. Unparseable arguments are kept as the raw string: the
 * agent's tool-argument validation treats a string where an object was expected as a validation
 * failure (fed back to the model), never as a crash.
 *
 * @example
 * parseToolArgs('{"id": 1}') // { id: 1 }
 * parseToolArgs('{"id": ')   // '{"id": '
 */
export function parseToolArgs(raw: string | null | undefined): unknown {
  if (raw === null || raw === undefined || raw.trim() === '') return {}
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return raw
  }
}
