/**
 * Throws a `TypeError` naming the function and the first key of `options` that is not in `known`: a
 * misspelled option (`redcat`, `tracerprovider`) must not be silently ignored.
 *
 * @example
 * refuseUnknownOptions(options, ['path', 'append'], 'recordTrace')
 */
export function refuseUnknownOptions(options: object, known: readonly string[], label: string): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)
      throw new TypeError(`${label}: unknown option ${shown} (known: ${known.join(', ')})`)
    }
  }
}
