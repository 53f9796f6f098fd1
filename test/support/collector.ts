import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * V8's full `gc()`, exposed at run time when the process allows it, or `undefined`. Tests that
 * must see an object collected assert it is defined; tests that only bound growth may go without.
 */
export function fullCollector(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as unknown
    if (typeof gc === 'function') return () => (gc as () => void)()
  } catch {
    // Fall through: no gc available.
  }
  return undefined
}
