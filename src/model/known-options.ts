import { messageOf } from './message-of.ts'

/** How much of an unknown key a message shows: a huge or newline-holding key stays one bounded line. */
const SHOWN_KEY_CHARS = 60

/**
 * Why `options` cannot be taken: its first own key that is not in `known` (a misspelt option nobody
 * reads must not be silently ignored), with the known name it is closest to when one is near (the same
 * letters in another case, at most two edits away, or its plural or singular), and the list of options. `undefined` when
 * every key is known. Keys the prototype supplies (`toString`, `__proto__`) are no options.
 *
 * @example
 * unknownOption({ redcat: [] }, ['path', 'redact'])
 * // 'unknown option "redcat" (did you mean "redact"?); the options are path, redact'
 */
export function unknownOption(options: object, known: readonly string[]): string | undefined {
  let keys: readonly string[]
  try {
    keys = Object.keys(options)
  } catch (error) {
    // A Proxy whose ownKeys trap throws: its keys cannot be checked, so it cannot be taken.
    return `the options' keys could not be read: ${messageOf(error)}`
  }
  for (const key of keys) {
    if (known.includes(key)) continue
    const near = nearName(key, known)
    const shown = shownName(key)
    return `unknown option ${shown}${near !== undefined ? ` (did you mean "${near}"?)` : ''}; the options are ${known.join(', ')}`
  }
  return undefined
}

/**
 * The name in `known` that `key` is likely a misspelling of: the same letters in another case, at
 * most two edits away, its plural or singular, or the same letters without `_` / `-`
 * (`toolStart` for `tool_start`). `undefined` when none is near.
 *
 * @example
 * nearName('validation_faild', ['run_start', 'validation_failed']) // 'validation_failed'
 */
export function nearName(key: string, known: readonly string[]): string | undefined {
  const bare = (name: string) => name.replace(/[_-]/g, '').toLowerCase()
  return (
    known.find((name) => name.toLowerCase() === key.toLowerCase()) ??
    known.find((name) => editDistance(name, key) <= 2) ??
    known.find((name) => singular(name) === singular(key)) ??
    known.find((name) => bare(name) === bare(key))
  )
}

/** A name as a message quotes it: JSON, cut at 60 characters (a huge or newline-holding name stays one bounded line). */
export function shownName(key: string): string {
  return JSON.stringify(key.length > SHOWN_KEY_CHARS ? `${key.slice(0, SHOWN_KEY_CHARS)}…` : key)
}

/**
 * Throws a `TypeError` naming the function (`label`) and the first key of `options` that is not in
 * `known` (see {@link unknownOption}).
 *
 * @example
 * refuseUnknownOptions(options, ['path', 'append'], 'recordTrace')
 */
export function refuseUnknownOptions(options: object, known: readonly string[], label: string): void {
  const problem = unknownOption(options, known)
  if (problem !== undefined) throw new TypeError(`${label}: ${problem}`)
}

/**
 * The name in `known` that `key` is a slip of, when it is close enough not to be a name of its own:
 * the same letters in another case, its singular or plural, or one edit away (two from a name of 8
 * letters or more). Stricter than {@link unknownOption}'s suggestion, for objects that may carry keys
 * of their own (a rule with an `id`): `delayMS` and `failureOnly` are slips, `id` is not.
 *
 * @example
 * slipOf('delayMS', ['when', 'then', 'kind', 'delayMs']) // 'delayMs'
 */
export function slipOf(key: string, known: readonly string[]): string | undefined {
  if (known.includes(key)) return undefined
  const lower = key.toLowerCase()
  return known.find(
    (name) => name.toLowerCase() === lower || singular(name) === singular(key) || (key.length >= 5 && editDistance(name, key) <= (key.length >= 8 ? 2 : 1)),
  )
}

/** A name as its singular, lower case: `maxToolRetries` and `maxToolRetry` are one option misspelt. */
function singular(name: string): string {
  return name.toLowerCase().replace(/ies$/, 'y').replace(/s$/, '')
}

/** Levenshtein distance of two short names, or 3 when their lengths alone differ by more than 2. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length] as number
}
