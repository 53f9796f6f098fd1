import { escapePointerToken } from './path.ts'
/** The base URI TypeBox gives a schema without `$id` (its `DefaultUri`). */
export const ROOT_URI = 'urn:typebox:root'

/**
 * Resolves an `$id` (or a `$ref`) against a base URI the way TypeBox does: URL resolution for
 * hierarchical bases, and for URN bases the reference appended after the base's last `:`.
 */
export function nextUri(ref: string, base: string): string {
  if (URL.canParse(ref, base)) return new URL(ref, base).href
  return base === ROOT_URI ? `${base}:${ref}` : `${base.slice(0, base.lastIndexOf(':'))}:${ref}`
}

/** A URI without its fragment: the key of a schema resource. */
export function canonicalUri(uri: string): string {
  const hash = uri.indexOf('#')
  return hash < 0 ? uri : uri.slice(0, hash)
}

/** One JSON Pointer token (`~` and `/` escaped), percent-encoded for a URI fragment. */
export function pointerToken(key: string): string {
  return encodeURIComponent(escapePointerToken(key))
}
