/**
 * `text` as one part of a key whose parts are joined with `:`: a `%` and a `:` in it written `%25` and
 * `%3A`, so that two keys made of different parts never meet (parts `a` and `1:x` would otherwise
 * make the key of parts `a:1` and `x`). A text holding neither is its own key part.
 */
export function keyPart(text: string): string {
  return text.includes(':') || text.includes('%') ? text.replaceAll('%', '%25').replaceAll(':', '%3A') : text
}
