import { optionalModule } from '../model/optional-module.ts'

/** The rxjs module, as `import * as rxjs from 'rxjs'` gives it. */
export type Rxjs = typeof import('rxjs')

/**
 * rxjs, required on first use, or `undefined` where it cannot be loaded synchronously.
 *
 * Why not a static import: on Node, `rxjs` resolves to its CommonJS build (its `exports` map sends the
 * `node` condition there, and deep ESM paths are not exported), 223 files and ~100 ms on every import
 * of this library, for users who may never observe anything. Why not `import()`: `events$.pipe(...)`
 * is synchronous. So it is required the first time an Observable is really needed; on Node, Bun and
 * Deno that is the very module the user's own `import ... from 'rxjs'` gets, so `instanceof`,
 * operators and `Subscription`s all agree. Where no synchronous require exists (browser bundles,
 * workerd), callers do without rxjs (see `lazyObservable`); bundlers never see this specifier, so
 * rxjs is not pulled into bundles that do not use it.
 */
export const loadRxjs: () => Rxjs | undefined = optionalModule<Rxjs>('rxjs')
