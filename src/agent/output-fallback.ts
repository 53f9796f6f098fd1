import { messageOf } from '../model/message-of.ts'
import { deepFrozen } from '../model/frozen-copy.ts'
import type { EventHub } from '../events/event-hub.ts'
import { raceAbort } from '../model/race-abort.ts'
import { callAsPromise } from '../model/call-as-promise.ts'
import type { ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import type { FailFastKind } from '../model/fail-fast-kind.ts'
import { checkForbiddenKeys, issueText, validateFinalAnswer, type CompiledSchema, type SchemaResult } from '../validation/index.ts'
import { option, optionsContract } from '../model/options-contract.ts'

/**
 * The agent's last lines of defence when the gate fails fast on the final answer's format.
 *
 * @example
 * .outputFallback({
 *   fallback: async (error, raw) => repairWithCheaperModel(raw), // tier 2, re-validated
 *   canned: { action: 'reject', reason: 'please try again later' }, // tier 3, validated at build()
 * })
 */
export interface OutputFallback<T> {
  /**
   * Tier 2: called with the gate's error and the last raw output. Its answer (a JSON text, or the
   * value itself) is validated against the output schema, and refused like model JSON when it holds
   * a forbidden key (`__proto__`, or `constructor` holding a `prototype`); if it throws or
   * fails, tier 3 is used.
   */
  readonly fallback?: (error: ReliabilityFailFastError, rawOutput: string | undefined) => unknown
  /** Tier 3: a fixed answer, validated against the output schema when the agent is built. */
  readonly canned?: T
  /**
   * Fail-fast kinds handled besides output failures (a parse or schema failure of the final answer,
   * retries exhausted and stuck loops included), e.g. `['budget-exceeded', 'circuit-open']`. Nothing
   * else is swallowed.
   * @default []
   */
  readonly alsoOn?: readonly (FailFastKind | (string & {}))[]
}

/** An answer produced by a fallback tier. */
export interface FallbackOutcome<T> {
  readonly tier: 'fallback' | 'canned'
  readonly text: string
  readonly value: T
}

/** An {@link OutputFallback} checked at build time. */
export interface ResolvedOutputFallback<T> {
  readonly fallback: OutputFallback<T>['fallback']
  readonly canned: { readonly text: string; readonly value: T } | undefined
  readonly alsoOn: ReadonlySet<string>
}

/** The keys of `Agent.outputFallback(config)`: a misspelt one (`fallbak`) is refused, never ignored. */
const OUTPUT_FALLBACK_OPTIONS = optionsContract<OutputFallback<unknown>>('Agent.outputFallback', {
  fallback: option.function(),
  canned: option.any(),
  alsoOn: option.where('an array of fail-fast kinds (non-empty strings)', (v) => Array.isArray(v) && v.every((k) => typeof k === 'string' && k !== '')),
})

/**
 * Checks the configuration and validates the canned answer now, so a canned answer that could never
 * be used fails at `build()` instead of in production.
 */
export function resolveOutputFallback<T>(config: OutputFallback<T>, schema: CompiledSchema<T> | undefined): ResolvedOutputFallback<T> {
  if (config === null || typeof config !== 'object') throw new TypeError('Agent.outputFallback: expected { fallback?, canned? }')
  // What was checked is what is used: each option read once.
  const o = OUTPUT_FALLBACK_OPTIONS.check(config) as OutputFallback<T>
  const hasCanned = 'canned' in config
  if (o.fallback === undefined && !hasCanned) throw new TypeError('Agent.outputFallback: give a fallback function, a canned answer, or both')
  let canned: ResolvedOutputFallback<T>['canned']
  if (hasCanned) {
    let checked: Checked<T> | Promise<Checked<T>>
    try {
      checked = checkValue(o.canned, schema)
    } catch (error) {
      // A BigInt, a cycle, a throwing toJSON or getter: an answer no run could send, refused by name now.
      throw new TypeError(`Agent.outputFallback: the canned answer cannot be read or written as JSON: ${messageOf(error)}`, { cause: error })
    }
    if (checked instanceof Promise)
      throw new TypeError('Agent.outputFallback: the canned answer must be checkable synchronously (the output schema validates asynchronously)')
    if (!checked.ok) throw new TypeError(`Agent.outputFallback: the canned answer does not match the output schema: ${checked.message}`)
    // Frozen whole: every run that answers with it shares it, so no caller's edit can reach the next run.
    canned = Object.freeze({ text: checked.text, value: deepFrozen(checked.value) })
  }
  return Object.freeze({ fallback: o.fallback, canned, alsoOn: new Set(o.alsoOn ?? []) })
}

/** Whether the output fallback handles this error: a final-answer format failure, or a kind listed in `alsoOn`. */
export function handlesError(config: ResolvedOutputFallback<unknown>, error: ReliabilityFailFastError): boolean {
  const stage = error.validationError?.stage
  return stage === 'json-parse' || stage === 'schema-validate' || config.alsoOn.has(error.kind)
}

/** The run an output fallback answers for: the schema its answer is checked against, the run's events, id and signal. */
export interface OutputFallbackRun<T> {
  readonly schema: CompiledSchema<T> | undefined
  readonly events: EventHub
  readonly runId: string
  readonly signal?: AbortSignal | undefined
}

/**
 * Runs tier 2 then tier 3 for an error the fallback handles; `undefined` when no tier produced an
 * answer (the caller rethrows the original error).
 */
export async function applyOutputFallback<T>(
  config: ResolvedOutputFallback<T>,
  error: ReliabilityFailFastError,
  run: OutputFallbackRun<T>,
): Promise<FallbackOutcome<T> | undefined> {
  const { schema, events, runId, signal } = run
  const rawOutput = error.validationError?.rawOutput ?? error.lastAttempt?.rawOutput
  if (config.fallback !== undefined) {
    if (events.has('output_fallback_triggered')) events.emit('output_fallback_triggered', { runId, kind: error.kind, reason: error.reason })
    try {
      // Tier 2 is user code (often another model call): it never holds the run past its signal.
      const answer = await raceAbort(callAsPromise(config.fallback, error, rawOutput), signal)
      const checked = await raceAbort(Promise.resolve(checkValue(answer, schema)), signal)
      if (checked.ok) return { tier: 'fallback', text: checked.text, value: checked.value }
    } catch {
      // A failing tier 2 is exactly what tier 3 is for (an aborted run is ended by the caller).
    }
  }
  if (config.canned === undefined) return undefined
  if (events.has('output_canned_used')) events.emit('output_canned_used', { runId, kind: error.kind, reason: error.reason })
  return { tier: 'canned', ...config.canned }
}

type Checked<T> = { readonly ok: true; readonly text: string; readonly value: T } | { readonly ok: false; readonly message: string }

/** A fallback answer checked like a model answer: text goes through JSON extraction, a value straight to the schema. */
function checkValue<T>(answer: unknown, schema: CompiledSchema<T> | undefined): Checked<T> | Promise<Checked<T>> {
  if (typeof answer === 'string') {
    const verdict = validateFinalAnswer(answer, schema)
    const settle = (v: Awaited<typeof verdict>): Checked<T> =>
      v.ok ? { ok: true, text: answer, value: v.value as T } : { ok: false, message: v.failure.message }
    return verdict instanceof Promise ? verdict.then(settle) : settle(verdict)
  }
  if (schema === undefined) return { ok: false, message: `expected a string answer (no output schema), got ${typeof answer}` }
  // A value (often parsed model JSON) is held to the same rule as text: no prototype-polluting keys.
  const forbidden = checkForbiddenKeys(answer)
  if (forbidden !== undefined) return { ok: false, message: forbidden.message }
  const text = JSON.stringify(answer) ?? String(answer)
  const verdict = schema.validate(answer)
  const settle = (v: SchemaResult<T>): Checked<T> =>
    v.ok ? { ok: true, text, value: v.value } : { ok: false, message: v.issues.map((i) => issueText(i, false)).join('; ') }
  return verdict instanceof Promise ? verdict.then(settle) : settle(verdict)
}
