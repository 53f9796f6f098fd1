// Characters a reader cannot see, or that move text around it: soft hyphen, zero-width space, joiner
// and non-joiner, direction marks and overrides, word joiner and invisible operators, the byte-order
// mark, line and paragraph separators. JSON.stringify leaves them as they are.
const INVISIBLE = /[\u00AD\u061C\u180E\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g

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
  return text.replace(INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
