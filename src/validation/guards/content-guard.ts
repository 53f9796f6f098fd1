import { MAX_TIMER_MS, option, optionsContract } from '../../model/options-contract.ts'

/**
 * Where a guard looks: the user's input, loaded history, a tool call's arguments (after
 * validation, before `execute`), a tool result or MCP content (before the model sees it), an MCP
 * tool's description (at listing), the final output, streamed deltas, and the retry tail (the
 * ephemeral feedback a retry sends).
 */
export type GuardSurface = 'input' | 'history' | 'tool-args' | 'tool-result' | 'mcp-description' | 'output' | 'stream' | 'retry-tail'

/** Every surface, once. */
export const GUARD_SURFACES: readonly GuardSurface[] = Object.freeze([
  'input',
  'history',
  'tool-args',
  'tool-result',
  'mcp-description',
  'output',
  'stream',
  'retry-tail',
])

/**
 * A content guard's verdict: `allow`; `redact` with the replacement text (re-validated where a
 * schema applies); `retry-with-feedback` (the model is asked again, told `feedback`); `block` (the
 * content never goes on; a tool result is withheld and the model sees a notice); `escalate` (the
 * run stops for a human).
 */
export type ContentVerdict =
  | { readonly action: 'allow' }
  | { readonly action: 'redact'; readonly text: string; readonly reason?: string }
  | { readonly action: 'retry-with-feedback'; readonly feedback: string }
  | { readonly action: 'block'; readonly reason: string }
  | { readonly action: 'escalate'; readonly reason: string }

/** What a tool is trusted with, for guards with per-tool trust (MCP annotations and the server). */
export interface ToolTrust {
  readonly name: string
  /** The MCP server the tool came from, by the name its caller gave it (`mcpTools({ serverName })`; absent without one). */
  readonly server?: string
  /** MCP `readOnlyHint`. */
  readonly readOnly?: boolean
  /** MCP `openWorldHint`: false when the tool reaches no outside content (no third party can write what it returns). */
  readonly openWorld?: boolean
}

/** What one guard is shown: the text of one surface, the tool it belongs to, and the run's signal. */
export interface GuardInput {
  readonly surface: GuardSurface
  readonly text: string
  readonly tool?: ToolTrust
  /** Aborts with the run: a guard doing I/O (a classifier, a judge model) passes it on. */
  readonly signal?: AbortSignal
}

/** The check a content guard runs; may be async. */
export type ContentCheck = (input: GuardInput) => ContentVerdict | PromiseLike<ContentVerdict>

/** Options of {@link contentGuard}. */
export interface ContentGuardOptions {
  /** The surfaces the guard looks at. @default every surface */
  readonly surfaces?: readonly GuardSurface[]
  /**
   * On a stream, the characters the guard needs to see after a point before the text up to it can
   * be released (its longest match). Only this window is held back. @default 0
   */
  readonly lookback?: number
  /** A guard that throws, rejects, answers no verdict or does not settle: `closed` blocks, `open` allows. @default 'closed' */
  readonly onError?: 'open' | 'closed'
  /** How long the guard may take, within the run's own deadline and signal. @default 30000 */
  readonly timeoutMs?: number
}

/** A guard over content, made by {@link contentGuard}: frozen, named, with its surfaces and stream lookback. */
export interface ContentGuard {
  readonly name: string
  readonly surfaces: readonly GuardSurface[]
  readonly lookback: number
  readonly onError: 'open' | 'closed'
  readonly timeoutMs: number
  readonly check: ContentCheck
}

const NAME = /^[A-Za-z0-9_.:-]{1,64}$/

const CONTENT_GUARD_OPTIONS = optionsContract<ContentGuardOptions>('contentGuard', {
  surfaces: option.where(
    `a non-empty list of ${GUARD_SURFACES.map((s) => `'${s}'`).join(', ')}`,
    (v) => Array.isArray(v) && v.length > 0 && Array.from(v).every((s) => GUARD_SURFACES.includes(s as GuardSurface)),
  ),
  lookback: option.integer(0, 1_000_000),
  onError: option.oneOf('open', 'closed'),
  timeoutMs: option.duration(),
})

/**
 * Makes a content guard with a stable name (events, traces and notices name it).
 *
 * @example
 * const noCompetitors = contentGuard('noCompetitors', ({ text }) =>
 *   /acme corp/i.test(text) ? { action: 'redact', text: text.replace(/acme corp/gi, 'a competitor') } : { action: 'allow' },
 *   { surfaces: ['output', 'stream'], lookback: 9 })
 */
export function contentGuard(name: string, check: ContentCheck, options?: ContentGuardOptions): ContentGuard {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new TypeError(`contentGuard: name must be 1-64 letters, digits, '_', '-', '.' or ':', got ${JSON.stringify(name)}`)
  }
  if (typeof check !== 'function') throw new TypeError(`contentGuard '${name}': check must be a function`)
  const o = CONTENT_GUARD_OPTIONS.check(options)
  return Object.freeze({
    name,
    surfaces: Object.freeze([...(o.surfaces ?? GUARD_SURFACES)]),
    lookback: o.lookback ?? 0,
    onError: o.onError ?? 'closed',
    timeoutMs: Math.min(o.timeoutMs ?? 30_000, MAX_TIMER_MS),
    check,
  })
}

/** Throws unless every entry is a guard made by {@link contentGuard}. */
export function assertContentGuards(guards: unknown, where: string): readonly ContentGuard[] {
  if (!Array.isArray(guards)) throw new TypeError(`${where}: expected an array of content guards`)
  for (const [i, g] of guards.entries()) {
    const c = g as Partial<ContentGuard> | null
    if (typeof c !== 'object' || c === null || typeof c.name !== 'string' || typeof c.check !== 'function' || !Array.isArray(c.surfaces)) {
      throw new TypeError(
        `${where}: content guard #${i} is not one: make it with contentGuard('name', check) or a shipped guard (piiGuard, secretsGuard, instructionGuard)`,
      )
    }
  }
  return Object.freeze([...(guards as ContentGuard[])])
}
