import { syncRequire } from '../../../model/sync-require.ts'

/** The part of `re2js` used here. */
export interface Re2Module {
  readonly RE2JS: {
    compile(pattern: string, flags?: number): Re2Compiled
    readonly CASE_INSENSITIVE: number
    readonly DOTALL: number
    readonly MULTILINE: number
    readonly LOOKBEHINDS: number
  }
}

/** A pattern compiled by RE2JS: `test` is an unanchored search in time linear in the input. */
export interface Re2Compiled {
  test(input: string): boolean
}

// re2js (~700 kB with its Unicode tables) loads with the first schema that holds a pattern, never on
// import: synchronously where the runtime can require (Node, Bun, Deno), else through `import()`.
let engine: Re2Module | undefined
let loading: Promise<Re2Module> | undefined
let triedRequire = false

/** The RE2 engine when it is loaded or can be loaded synchronously; `undefined` otherwise. */
export function re2Now(): Re2Module | undefined {
  if (engine !== undefined || triedRequire) return engine
  triedRequire = true
  const require = syncRequire()
  try {
    if (require !== undefined) engine = require('re2js') as Re2Module
  } catch {
    // A runtime that cannot require it (an ES-only bundle) takes the import() path.
  }
  return engine
}

/** Loads the RE2 engine asynchronously (once). */
export function loadRe2(): Promise<Re2Module> {
  return (loading ??= import('re2js').then((loaded) => (engine = loaded as unknown as Re2Module)))
}
