import { abortedWhy, slotOf } from './attempt-slot.ts'
import type { AttemptContext } from './middleware.ts'

/**
 * Why the link named `who` may not be entered for the attempt of `ctx`: a `TypeError` once the
 * attempt settled, the abort's error once its signal aborted (or it was stopped); `undefined` while
 * it may. Whoever calls on after its run let go can therefore never reach a provider.
 */
export function refusal(ctx: AttemptContext, who: string): unknown {
  if (slotOf(ctx)?.closed === true)
    return new TypeError(`${who === '' ? 'a link' : `the link ${printable(who)}`} was entered after attempt ${ctx.attempt} had settled`)
  return abortedWhy(ctx)
}

/** A name as shown in an error: no control or line-breaking character that could forge a log line. */
export function printable(name: string): string {
  let out = ''
  for (const ch of name) {
    const code = ch.codePointAt(0) as number
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 ? '?' : ch
  }
  return out
}
