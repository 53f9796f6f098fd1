const BACKSLASH = 92
// Where a value may start: after these (spaces skipped), a `(` opens a Python tuple, not a call.
const VALUE_POSITION = new Set([91, 44, 58, 40])

/**
 * A Python list of tuples written as JSON arrays: `[('f', {'a': 1}), ('g', {})]` becomes
 * `[['f', {'a': 1}], ['g', {}]]` (what `json.dumps` writes for a tuple), strings left as they are.
 * Only a parenthesis in a value position (after `[`, `,`, `:` or another `(`) and closed in order is
 * a tuple; any other (`f(x)`, `[('a', 'b']`) means the text is code, not data: `'code'` (a repairer
 * would turn the parenthesis into a string `"("`, a value the model never wrote). `'none'` when the
 * text holds no parenthesis outside strings and comments. One linear pass.
 *
 * @example
 * tuplesToArrays("[('f', {'a': 1})]") // "[['f', {'a': 1}]]"
 */
export function tuplesToArrays(text: string): string | 'none' | 'code' {
  if (text.indexOf('(') < 0 && text.indexOf(')') < 0) return 'none'
  const out: string[] = []
  const open: boolean[] = []
  let quote = 0
  let last = 0
  let found = false
  let previous = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (quote !== 0) {
      if (code === BACKSLASH) i++
      else if (code === quote) quote = 0
      continue
    }
    if (code === 34 || code === 39) quote = code
    else if (code === 47 && text.charCodeAt(i + 1) === 47) {
      // A comment runs to the end of its line (`// this call (the first) ...`): not code to rewrite.
      const eol = text.indexOf('\n', i)
      i = eol < 0 ? text.length : eol
      continue
    } else if (code === 47 && text.charCodeAt(i + 1) === 42) {
      const close = text.indexOf('*/', i + 2)
      i = close < 0 ? text.length : close + 1
      continue
    } else if (code === 40) {
      if (!VALUE_POSITION.has(previous)) return 'code'
      open.push(true)
      out.push(text.slice(last, i), '[')
      last = i + 1
      found = true
    } else if (code === 41) {
      if (open.pop() !== true) return 'code'
      out.push(text.slice(last, i), ']')
      last = i + 1
    } else if (code === 123 || code === 91) open.push(false)
    else if ((code === 125 || code === 93) && open.pop() === true) return 'code'
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) previous = code
  }
  if (!found) return 'none'
  if (open.includes(true)) return 'code'
  out.push(text.slice(last))
  return out.join('')
}
