import { runStages } from './run-stages.ts'
import { type Stage, stageGroup } from './stage.ts'
import type { AttemptContext, AttemptResult, Terminal } from './middleware.ts'

/**
 * A link the library writes itself: `next(ctx)` runs the rest of the chain with that context, the
 * same one or a copy with another request. The chain gives every library link one `next` per
 * position, made when the chain is composed, so an attempt through library links builds no
 * closure; a user's {@link Middleware} gets its own guarded `next` per attempt (called once, with a
 * request, never after the attempt settled). A link made from a {@link Stage} (the deadline, the
 * check, the policies, the meter) runs, in a chain, together with the stages beside it.
 */
export type Link = ((ctx: AttemptContext, next: Terminal) => Promise<AttemptResult>) & { readonly [LIBRARY_LINK]: true; readonly [STAGE]?: Stage }

const LIBRARY_LINK: unique symbol = Symbol('reliability-gate.link')
const STAGE: unique symbol = Symbol('reliability-gate.stage')

/** Marks `fn` as a library {@link Link}; its name is kept for errors and traces. */
function libraryLink(fn: (ctx: AttemptContext, next: Terminal) => Promise<AttemptResult>): Link {
  Object.defineProperty(fn, LIBRARY_LINK, { value: true })
  return fn as Link
}

/** `stage` as a library {@link Link}: called on its own it runs that one stage around `next`. */
export function stageLink<T>(stage: Stage<T>): Link {
  const group = stageGroup([stage as Stage])
  const link = libraryLink((ctx, next) => runStages(group, ctx, next))
  Object.defineProperty(link, 'name', { value: stage.name })
  Object.defineProperty(link, STAGE, { value: stage })
  return link
}

/** True for a link made by {@link libraryLink}. */
export function isLibraryLink(value: unknown): value is Link {
  return typeof value === 'function' && (value as Partial<Link>)[LIBRARY_LINK] === true
}

/** The stage a link was made from by {@link stageLink}, if any. */
export function stageOf(link: unknown): Stage | undefined {
  return isLibraryLink(link) ? link[STAGE] : undefined
}

/** Stages that run as one link (see {@link Stage}), named after them. */
export function stagesLink(stages: readonly Stage[]): Link {
  const group = stageGroup(stages)
  const link = libraryLink((ctx, next) => runStages(group, ctx, next))
  Object.defineProperty(link, 'name', { value: stages.map((s) => s.name).join('+') })
  return link
}
