import { isRecord } from '../../model/is-record.ts'

// Under the `u` flag a surrogate pair is one code point: only a lone half is `Cs`.
const LONE_SURROGATE = /\p{Cs}/u
const LONE_SURROGATES = /\p{Cs}/gu

/**
 * `text` with every lone surrogate (half of a UTF-16 pair, which has no UTF-8 form: a tool output or
 * a string cut in the middle of an emoji) written U+FFFD, as `String.prototype.toWellFormed` does.
 * Anthropic's API refuses a body holding one ("no low surrogate in string") with a 400 on every
 * later request of the conversation. A well-formed text is returned as it is.
 *
 * @example
 * wellFormedText('ok \ud83d') // 'ok \ufffd'
 */
export function wellFormedText(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text
}

/** A JSON value with {@link wellFormedText} applied to every string and key; copied only where one changed. */
export function wellFormedJson(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value)
  if (Array.isArray(value)) {
    const items = value.map(wellFormedJson)
    return items.some((item, i) => item !== value[i]) ? items : value
  }
  if (!isRecord(value)) return value
  let changed = false
  const entries = Object.entries(value).map(([key, item]) => {
    const entry: [string, unknown] = [wellFormedText(key), wellFormedJson(item)]
    if (entry[0] !== key || entry[1] !== item) changed = true
    return entry
  })
  return changed ? Object.fromEntries(entries) : value
}
