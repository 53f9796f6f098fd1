/**
 * The UTF-8 length of a string without encoding it: what `TextEncoder` would write, a lone
 * surrogate counting as U+FFFD (3 bytes).
 *
 * @example
 * utf8Length('héllo') // 6
 */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    bytes += unitBytes(text, i, unit)
    if (isPairAt(text, i, unit)) i++
  }
  return bytes
}

/** The number of UTF-16 units of the longest prefix of at most `maxBytes` UTF-8 bytes, never splitting a pair. */
export function utf8Prefix(text: string, maxBytes: number): number {
  let bytes = 0
  let i = 0
  while (i < text.length) {
    const unit = text.charCodeAt(i)
    bytes += unitBytes(text, i, unit)
    if (bytes > maxBytes) break
    i += isPairAt(text, i, unit) ? 2 : 1
  }
  return i
}

function unitBytes(text: string, i: number, unit: number): number {
  if (unit < 0x80) return 1
  if (unit < 0x800) return 2
  return isPairAt(text, i, unit) ? 4 : 3
}

function isPairAt(text: string, i: number, unit: number): boolean {
  if (unit < 0xd800 || unit > 0xdbff) return false
  const low = text.charCodeAt(i + 1)
  return low >= 0xdc00 && low <= 0xdfff
}
