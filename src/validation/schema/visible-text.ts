// Characters a reader cannot see, or that move text around it: the C1 controls (U+0085 ends a line
// for many readers), soft hyphen, zero-width space, joiner and non-joiner, direction marks and
// overrides, word joiner and invisible operators, the byte-order mark, interlinear annotation marks,
// line and paragraph separators, and the tag characters (text hidden in plain sight). JSON.stringify
// leaves them as they are.
const INVISIBLE = /[\u0080-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/gu

/**
 * Text with every invisible character written as its `\uXXXX` escape, so feedback shows the model a
 * key or value it cannot otherwise see is wrong (`"amo\u200bunt"`, not `"amo​unt"`). The text itself
 * when it holds none.
 *
 * @example
 * showInvisible('amo\u200bunt') // 'amo\\u200bunt'
 */
export function showInvisible(text: string): string {
  INVISIBLE.lastIndex = 0
  if (!INVISIBLE.test(text)) return text
  // A tag character is two UTF-16 units: each written as its escape, as JSON writes them.
  return text.replace(INVISIBLE, (ch) => [...Array(ch.length).keys()].map((i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''))
}
