import { syncRequire } from './sync-require.ts'

/**
 * A loader of an optional package: required synchronously on its first call, then remembered. It
 * answers the module, or `undefined` where the package is not installed or the runtime cannot require
 * synchronously (browser bundles, workerd). Bundlers see no import of `specifier`, so the package
 * stays out of bundles that never load it.
 *
 * @example
 * const loadRxjs = optionalModule<typeof import('rxjs')>('rxjs')
 * loadRxjs()?.Subject
 */
export function optionalModule<T>(specifier: string): () => T | undefined {
  let loaded: T | null | undefined
  return () => {
    if (loaded === undefined) {
      const require = syncRequire()
      try {
        loaded = require === undefined ? null : (require(specifier) as T)
      } catch {
        loaded = null
      }
    }
    return loaded ?? undefined
  }
}
