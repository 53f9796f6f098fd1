/** A CommonJS-style `require`, resolving from this package's location. */
export type SyncRequire = (specifier: string) => unknown

interface NodeModuleBuiltin {
  createRequire(from: string): SyncRequire
}

let bound: SyncRequire | null | undefined

/**
 * A `require` bound to this package where the runtime can load a module synchronously (Node >= 22.3,
 * Bun, Deno: through `process.getBuiltinModule`, so no `node:` import reaches bundles); `undefined`
 * elsewhere (browsers, workerd bundles), where callers fall back to `import()` or do without.
 *
 * Optional pieces (rxjs, gpt-tokenizer) load through it on first use: a synchronous API can then
 * stay synchronous, and importing the library never pays for them.
 */
export function syncRequire(): SyncRequire | undefined {
  if (bound === undefined) bound = createBoundRequire()
  return bound ?? undefined
}

function createBoundRequire(): SyncRequire | null {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  if (typeof getBuiltinModule !== 'function') return null
  try {
    const builtin = getBuiltinModule('node:module') as NodeModuleBuiltin | undefined
    return typeof builtin?.createRequire === 'function' ? builtin.createRequire(import.meta.url) : null
  } catch {
    // A runtime that stubs node:module (workerd without the module API) cannot require packages.
    return null
  }
}
