/**
 * The compiler's own copy of a raw JSON Schema document: what `JSON.stringify` writes of it now,
 * parsed back (a `__proto__` key stays an own key), so an edit the caller makes to its object after
 * compiling changes neither the verdicts nor the issues. TypeBox's error walk reads the document it
 * was given on every rejected value, and its compile may wait for the engines to load. A TypeBox
 * schema (its `~kind` and refinements are not JSON), or a document JSON cannot write (a cycle, a
 * bigint), is kept as given.
 */
export function schemaSnapshot<S>(schema: S): S {
  if (typeof schema !== 'object' || schema === null || '~kind' in schema) return schema
  let text: string | undefined
  try {
    text = JSON.stringify(schema)
  } catch {
    return schema
  }
  return text === undefined ? schema : (JSON.parse(text) as S)
}
