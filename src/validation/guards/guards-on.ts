import { type ContentGuard, contentGuard, type GuardSurface } from './content-guard.ts'

/**
 * The guards of `guards` that look at any of `surfaces`, each narrowed to those surfaces (same
 * name, check, lookback and failure mode): what a host hands to a part that must not screen the
 * others (the AI SDK middleware's gate gets the `output` guards while the middleware screens the
 * stream itself, so no delta is screened twice).
 */
export function guardsOn(guards: readonly ContentGuard[], surfaces: readonly GuardSurface[]): readonly ContentGuard[] {
  const out: ContentGuard[] = []
  for (const g of guards) {
    const on = g.surfaces.filter((s) => surfaces.includes(s))
    if (on.length === 0) continue
    out.push(
      on.length === g.surfaces.length ? g : contentGuard(g.name, g.check, { surfaces: on, lookback: g.lookback, onError: g.onError, timeoutMs: g.timeoutMs }),
    )
  }
  return Object.freeze(out)
}
