import { option, optionsContract } from '../../model/options-contract.ts'
import { assertContentGuards, type ContentGuard } from './content-guard.ts'
import { type GuardOutcome, type GuardRecord, runContentGuards } from './run-content-guards.ts'

/** What a {@link StreamWindow} lets out: text that is safe to deliver, or the guard's stop (nothing more is released). */
export type StreamRelease =
  | { readonly action: 'release'; readonly text: string }
  | { readonly action: 'block' | 'escalate' | 'retry-with-feedback'; readonly guard: string; readonly reason: string }

/** Options of {@link streamWindow}. */
export interface StreamWindowOptions {
  readonly signal?: AbortSignal | undefined
  readonly report?: ((record: GuardRecord) => void) | undefined
}

const STREAM_WINDOW = optionsContract<StreamWindowOptions>('streamWindow', {
  signal: option.where('an AbortSignal', (v) => v instanceof AbortSignal),
  report: option.function(),
})

/** A held-back window over a stream of text deltas, screened by the `stream` guards. */
export interface StreamWindow {
  /** Adds a delta; resolves with what may be delivered now (possibly nothing). */
  push(delta: string): Promise<StreamRelease>
  /** The stream ended: the held-back tail, screened once more, or the guard's stop. */
  end(): Promise<StreamRelease>
  /** Characters held back now. */
  readonly held: number
  /** The window: the longest lookback the stream guards declare. */
  readonly lookback: number
}

/**
 * A stream's deltas behind the `stream` guards, holding back only the lookback window they
 * declare: after each delta the unreleased text is screened, then all of it but its last
 * `lookback` characters is released, redactions applied, once no redaction reaches into that tail.
 * A match no longer than its guard's lookback is therefore whole inside the screened text before
 * any of it could be released, so nothing a guard redacts or blocks is ever delivered. After a
 * block (or escalation, or re-ask) nothing more is released.
 *
 * @example
 * const window = streamWindow([piiGuard(), secretsGuard()])
 * for await (const delta of deltas) { const r = await window.push(delta); if (r.action === 'release') send(r.text); else break }
 * const tail = await window.end()
 */
export function streamWindow(guards: readonly ContentGuard[], given?: StreamWindowOptions): StreamWindow {
  const options = STREAM_WINDOW.check(given)
  const active = assertContentGuards(guards, 'streamWindow').filter((g) => g.surfaces.includes('stream'))
  const lookback = active.reduce((max, g) => Math.max(max, g.lookback), 0)
  let pending = ''
  let stopped: StreamRelease | undefined
  const screen = async (final: boolean): Promise<StreamRelease> => {
    if (stopped !== undefined) return stopped
    // The screened text: `pending` as the guards leave it. `pending` itself stays as it came, so a
    // match still growing at its end (digits that become a card) is screened whole next time.
    let screened = pending
    if (active.length > 0 && pending !== '') {
      const outcome = await runContentGuards(active, { surface: 'stream', text: pending, signal: options.signal, report: options.report })
      if (outcome.action === 'redact') screened = outcome.text
      else if (outcome.action !== 'allow') {
        pending = ''
        stopped = Object.freeze({ action: outcome.action, guard: outcome.guard, reason: outcome.reason })
        return stopped
      }
    }
    if (final) {
      pending = ''
      return { action: 'release', text: screened }
    }
    let keep = Math.min(lookback, pending.length)
    // Never split a surrogate pair across two releases, nor release a high surrogate whose pair has
    // not come yet (with no lookback too): the cut never falls just after a high surrogate.
    if (keep < pending.length && isHighSurrogate(pending.charCodeAt(pending.length - keep - 1))) keep++
    // Release only when the kept tail is untouched by the guards: every redaction then lies in the
    // released part, whole. A redaction reaching into the tail: see `splitRelease`.
    if (commonSuffix(pending, screened) < keep) return (await splitRelease(screened, keep)) ?? { action: 'release', text: '' }
    const text = screened.slice(0, screened.length - keep)
    pending = pending.slice(pending.length - keep)
    return { action: 'release', text }
  }
  /**
   * With a redaction in the kept tail, the text before the tail is released when the guards agree
   * on it alone: the head and the tail screened apart, joined, are exactly the whole text's
   * screening (a match across the cut would be redacted whole in one and cut in the others). Then
   * what is released is the whole screening's prefix, as always. Without this, text dense with
   * matches (a contact list) would be held whole to its end, each delta screening all of it again.
   */
  const splitRelease = async (screened: string, keep: number): Promise<StreamRelease | undefined> => {
    const cut = pending.length - keep
    if (cut <= 0) return undefined
    const head = pending.slice(0, cut)
    const tail = pending.slice(cut)
    const headText = screenedAlone(await runContentGuards(active, { surface: 'stream', text: head, signal: options.signal }), head)
    if (headText === undefined || !screened.startsWith(headText)) return undefined
    const tailText = screenedAlone(await runContentGuards(active, { surface: 'stream', text: tail, signal: options.signal }), tail)
    if (tailText === undefined || headText.length + tailText.length !== screened.length || !screened.endsWith(tailText)) return undefined
    pending = tail
    return { action: 'release', text: headText }
  }
  // One screening at a time, in the order of the calls: a push not awaited never races the one before it.
  let queue: Promise<unknown> = Promise.resolve()
  const serial = (step: () => Promise<StreamRelease>): Promise<StreamRelease> => {
    const next = queue.then(step)
    queue = next
    return next
  }
  return {
    push: (delta) => {
      if (typeof delta !== 'string') return Promise.reject(new TypeError(`streamWindow.push: a delta must be a string, got ${typeof delta}`))
      return serial(() => {
        if (stopped === undefined) pending += delta
        return screen(false)
      })
    },
    end: () => serial(() => screen(true)),
    get held() {
      return pending.length
    },
    lookback,
  }
}

/** The text a screening of `text` alone leaves, or undefined when the guards stopped it. */
function screenedAlone(outcome: GuardOutcome, text: string): string | undefined {
  return outcome.action === 'allow' ? text : outcome.action === 'redact' ? outcome.text : undefined
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/** How many characters `a` and `b` share at their ends. */
function commonSuffix(a: string, b: string): number {
  let n = 0
  while (n < a.length && n < b.length && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++
  return n
}
