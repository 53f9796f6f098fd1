import { cutAt } from '../schema/received.ts'

/** The marker ending a text {@link boundText} cut: how many characters were left out. */
export function cutMarker(cut: number): string {
  return `[…${cut} characters cut…]`
}

/**
 * Bounds a text leaving for the model or a sink (a tool's result or error): unchanged when it fits
 * in `maxChars`, else its head (never half a surrogate pair) and, on its own line, a marker saying
 * how many characters were cut, e.g. `[…2999000 characters cut…]`. The whole is at most `maxChars`
 * characters; below the marker's own length only a prefix of the marker fits.
 *
 * @example
 * boundText('x'.repeat(100), 40) // 'xxxxxxxxxxxxxxxxx\n[…83 characters cut…]' (40 characters)
 */
export function boundText(text: string, maxChars: number): string {
  const max = Math.max(0, Math.floor(maxChars))
  if (text.length <= max) return text
  // The marker's length depends on the count, which depends on the head's length: two rounds settle it.
  let headLength = max - cutMarker(text.length).length - 1
  if (headLength <= 0) return cutAt(cutMarker(text.length), max)
  let head = cutAt(text, headLength)
  headLength = max - cutMarker(text.length - head.length).length - 1
  head = cutAt(text, headLength)
  return `${head}\n${cutMarker(text.length - head.length)}`
}
