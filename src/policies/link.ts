import type { AttemptContext, AttemptResult, Terminal } from './middleware.ts'

/**
 * A link the library writes itself (the deadline, the check, the policies, the meter): `next(ctx)`
 * runs the rest of the chain with that context, the same one or a copy with another request. The
 * chain gives every library link one `next` per position, made when the chain is composed, so an
 * attempt through library links builds no closure; a user's {@link Middleware} gets its own guarded
 * `next` per attempt (called once, with a request, never after the attempt settled).
 */
export type Link = ((ctx: AttemptContext, next: Terminal) => Promise<AttemptResult>) & { readonly [LIBRARY_LINK]: true }

const LIBRARY_LINK: unique symbol = Symbol('reliability-gate.link')

/** Marks `fn` as a library {@link Link}; its name is kept for errors and traces. */
export function libraryLink(fn: (ctx: AttemptContext, next: Terminal) => Promise<AttemptResult>): Link {
  Object.defineProperty(fn, LIBRARY_LINK, { value: true })
  return fn as Link
}

/** True for a link made by {@link libraryLink}. */
export function isLibraryLink(value: unknown): value is Link {
  return typeof value === 'function' && (value as Partial<Link>)[LIBRARY_LINK] === true
}
