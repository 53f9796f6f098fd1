import { callUser, type UserResult } from '../../model/user-code.ts'
import type { ContentGuard, ContentVerdict, GuardSurface, ToolTrust } from './content-guard.ts'

/** Why a guard gave no verdict of its own (it then fails open or closed, as it is configured). */
export type GuardFailure = 'threw' | 'rejected' | 'timed-out' | 'aborted' | 'invalid-verdict'

/** One guard's verdict on one surface, as events and traces report it: never the text itself. */
export interface GuardRecord {
  readonly guard: string
  readonly surface: GuardSurface
  readonly action: ContentVerdict['action']
  /** The guard's reason or feedback (block, escalate, retry-with-feedback, redact), or what went wrong. */
  readonly reason?: string
  readonly tool?: string
  /** Set when the guard failed: its verdict is then its `onError` (`block` when closed, `allow` when open). */
  readonly failure?: GuardFailure
}

/** What {@link runContentGuards} is given besides the guards. */
export interface GuardRunState {
  readonly surface: GuardSurface
  readonly text: string
  readonly tool?: ToolTrust | undefined
  /** The run's signal: its deadline and its abort bound every guard. */
  readonly signal?: AbortSignal | undefined
  /** Told each guard's verdict before it is acted on (the caller emits `guard_verdict`). */
  readonly report?: ((record: GuardRecord) => void) | undefined
}

/**
 * What the guards of one surface decided: `allow` (the text as given), `redact` (the text after
 * every redaction, each guard seeing the one before it), or the first guard's `retry-with-feedback`,
 * `block` or `escalate` (no later guard runs).
 */
export type GuardOutcome =
  | { readonly action: 'allow'; readonly text: string }
  | { readonly action: 'redact'; readonly text: string; readonly guards: readonly string[] }
  | { readonly action: 'retry-with-feedback' | 'block' | 'escalate'; readonly guard: string; readonly reason: string }

const ALLOW_ALL = (text: string): GuardOutcome => ({ action: 'allow', text })

// Passes over the chain before redactions that keep undoing each other are a block: a chain that
// never settles must not hand on a text some guard still rewrites.
const MAX_PASSES = 4

/**
 * Runs the guards that look at `state.surface`, in order, over its text, each through the user-code
 * boundary: a guard that throws, rejects, answers no verdict, or does not settle within its
 * `timeoutMs` or the run's signal fails `closed` (a block) or `open` (allow), as it was made.
 * A redaction is screened again by every guard, its own included (a replacement may hold what a
 * guard removes): the text handed on is one every guard allowed as it is, or the chain blocks.
 * Never throws.
 */
export async function runContentGuards(guards: readonly ContentGuard[], state: GuardRunState): Promise<GuardOutcome> {
  const chain = guards.filter((g) => g.surfaces.includes(state.surface))
  let text = state.text
  const redactedBy: string[] = []
  // The text each guard last allowed: a guard is asked again whenever the text changed since.
  const seen = new Map<ContentGuard, string>()
  const asked = new Set<ContentGuard>()
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    for (const g of chain) {
      if (seen.get(g) === text) continue
      const again = asked.has(g)
      asked.add(g)
      const before = text
      const verdict = await verdictOf(g, { ...state, text })
      const v = verdict.verdict
      // A re-screen that changes nothing is no new verdict: each guard reports once, and again only when it acts.
      if (!again || (v.action !== 'allow' && !(v.action === 'redact' && v.text === text))) report(state, recordOf(g, state, verdict))
      if (v.action === 'retry-with-feedback' || v.action === 'block' || v.action === 'escalate') {
        return Object.freeze({ action: v.action, guard: g.name, reason: v.action === 'retry-with-feedback' ? v.feedback : v.reason })
      }
      if (v.action === 'redact') {
        text = v.text
        if (!redactedBy.includes(g.name)) redactedBy.push(g.name)
      }
      // A guard is asked again about its own replacement too: one that writes back what it removes never settles, and blocks.
      if (v.action === 'redact' && v.text !== before) seen.delete(g)
      else seen.set(g, text)
    }
    if (chain.every((g) => seen.get(g) === text)) {
      return redactedBy.length === 0 ? ALLOW_ALL(state.text) : Object.freeze({ action: 'redact', text, guards: Object.freeze(redactedBy) })
    }
  }
  const last = redactedBy.at(-1) ?? chain[0]?.name ?? 'guards'
  return Object.freeze({
    action: 'block',
    guard: last,
    reason: `the redactions of ${redactedBy.join(', ')} did not settle in ${MAX_PASSES} passes (it fails closed)`,
  })
}

function recordOf(g: ContentGuard, state: GuardRunState, verdict: { verdict: ContentVerdict; failure?: GuardFailure }): GuardRecord {
  const reason =
    verdict.failure !== undefined && g.onError === 'open' ? `guard '${g.name}' ${FAILURE_TEXT[verdict.failure]} (it fails open)` : reasonOf(verdict.verdict)
  return {
    guard: g.name,
    surface: state.surface,
    action: verdict.verdict.action,
    ...(reason !== undefined ? { reason } : {}),
    ...(state.tool !== undefined ? { tool: state.tool.name } : {}),
    ...(verdict.failure !== undefined ? { failure: verdict.failure } : {}),
  }
}

async function verdictOf(g: ContentGuard, state: GuardRunState): Promise<{ verdict: ContentVerdict; failure?: GuardFailure }> {
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(new Error(`guard '${g.name}' did not answer within ${g.timeoutMs} ms`)), g.timeoutMs)
  const signal = state.signal === undefined ? timeout.signal : AbortSignal.any([state.signal, timeout.signal])
  const input = Object.freeze({
    surface: state.surface,
    text: state.text,
    ...(state.tool !== undefined ? { tool: Object.freeze({ ...state.tool }) } : {}),
    signal,
  })
  let threw = false
  const check = (): ContentVerdict | PromiseLike<ContentVerdict> => {
    try {
      return g.check(input)
    } catch (error) {
      threw = true
      throw error
    }
  }
  let result: UserResult<ContentVerdict>
  try {
    result = await callUser(check, signal)
  } finally {
    clearTimeout(timer)
  }
  if (!result.ok) {
    const failure: GuardFailure = result.aborted ? (timeout.signal.aborted ? 'timed-out' : 'aborted') : threw ? 'threw' : 'rejected'
    return { verdict: failed(g, failure), failure }
  }
  const checked = checkedVerdict(result.value)
  return checked === undefined ? { verdict: failed(g, 'invalid-verdict'), failure: 'invalid-verdict' } : { verdict: checked }
}

function failed(g: ContentGuard, failure: GuardFailure): ContentVerdict {
  const why = `guard '${g.name}' ${FAILURE_TEXT[failure]}`
  return g.onError === 'open' ? { action: 'allow' } : { action: 'block', reason: `${why} (it fails closed)` }
}

const FAILURE_TEXT: Readonly<Record<GuardFailure, string>> = {
  threw: 'threw',
  rejected: 'rejected',
  'timed-out': 'did not answer in time',
  aborted: 'was cut short by the run',
  'invalid-verdict': 'answered no verdict',
}

/** The verdict when it is one (a copy read once), else undefined: a verdict whose fields throw when read (a getter, a proxy) is none. */
function checkedVerdict(v: unknown): ContentVerdict | undefined {
  try {
    return verdictFields(v)
  } catch {
    return undefined
  }
}

function verdictFields(v: unknown): ContentVerdict | undefined {
  if (typeof v !== 'object' || v === null) return undefined
  const r = v as Record<string, unknown>
  switch (r.action) {
    case 'allow':
      return { action: 'allow' }
    case 'redact':
      return typeof r.text === 'string' ? { action: 'redact', text: r.text, ...(typeof r.reason === 'string' ? { reason: r.reason } : {}) } : undefined
    case 'retry-with-feedback':
      return typeof r.feedback === 'string' && r.feedback !== '' ? { action: 'retry-with-feedback', feedback: r.feedback } : undefined
    case 'block':
    case 'escalate':
      return typeof r.reason === 'string' ? { action: r.action, reason: r.reason } : undefined
    default:
      return undefined
  }
}

function reasonOf(v: ContentVerdict): string | undefined {
  switch (v.action) {
    case 'allow':
      return undefined
    case 'redact':
      return v.reason
    case 'retry-with-feedback':
      return v.feedback
    default:
      return v.reason
  }
}

function report(state: GuardRunState, record: GuardRecord): void {
  if (state.report === undefined) return
  try {
    state.report(Object.freeze(record))
  } catch {
    // The reporter is the library's own event hub, which contains its listeners' errors.
  }
}
