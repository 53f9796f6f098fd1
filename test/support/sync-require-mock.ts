import { createRequire } from 'node:module'
import { vi } from 'vitest'

const realRequire = createRequire(import.meta.url)

/**
 * Replaces the library's synchronous `require` for the modules imported after this call (use with
 * `vi.resetModules()` and dynamic imports): `mode: 'none'` emulates a runtime without one (browser
 * bundles, workerd); `'record'` delegates to Node's and records every specifier; `missing` lists
 * packages that then fail as if they were not installed.
 */
export function mockSyncRequire(mode: 'none' | 'record', missing: readonly string[] = []): string[] {
  const requested: string[] = []
  vi.doMock('../../src/model/sync-require.ts', () => ({
    syncRequire: () =>
      mode === 'none'
        ? undefined
        : (specifier: string) => {
            requested.push(specifier)
            if (missing.includes(specifier)) throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'MODULE_NOT_FOUND' })
            return realRequire(specifier)
          },
  }))
  return requested
}
