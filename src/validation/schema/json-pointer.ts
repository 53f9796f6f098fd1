/**
 * Resolves a local JSON Pointer reference (`#`, `#/$defs/name`) against a schema document;
 * `undefined` when it does not resolve or is not a local pointer (anchors, external URIs).
 * Tokens are percent-decoded where they can be; a malformed escape such as `100%` is taken literally.
 */
export function resolveJsonPointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    const key = safeDecode(raw).replace(/~1/g, '/').replace(/~0/g, '~')
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
