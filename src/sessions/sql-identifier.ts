/** The longest identifier PostgreSQL keeps (NAMEDATALEN - 1 bytes): a longer one is cut, silently. */
export const MAX_IDENTIFIER_BYTES = 63

/** One SQL identifier: a letter or `_`, then letters, digits or `_` (any script's letters, as PostgreSQL reads them). */
const UTF8 = new TextEncoder()
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u

/**
 * What is wrong with `name` as one SQL identifier of at most `maxBytes` bytes of UTF-8, or
 * `undefined`. Reserved words (`user`, `order`) are fine: the stores always quote the names they use.
 */
export function identifierProblem(name: string, maxBytes = MAX_IDENTIFIER_BYTES): string | undefined {
  if (!IDENTIFIER.test(name)) return 'letters, digits and _, not starting with a digit'
  if (UTF8.encode(name).length > maxBytes) return `at most ${maxBytes} bytes`
  return undefined
}

/** `name` as a quoted SQL identifier (`"user"`): a reserved word stays a name, the case is kept. */
export const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`
