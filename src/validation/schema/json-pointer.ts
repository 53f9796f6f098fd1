/**
 * Resolves a local JSON Pointer reference (`#`, `#/$defs/name`) against a schema document;
 * `undefined` when it does not resolve or is not a local pointer (anchors, external URIs).
 * The fragment is percent-decoded before it is split into tokens (RFC 6901, section 6, and the
 * compiler alike: `#/$defs/a%2Fb` is `/$defs/a/b`; the key `a/b` is `a~1b`); a malformed escape such
 * as `100%` is taken literally.
 */
export function resolveJsonPointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of safeDecode(ref.slice(2)).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

function safeDecode(token: string): string {
  try {
    return decodeURIComponent(token)
  } catch {
    return token
  }
}
