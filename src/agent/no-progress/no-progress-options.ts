import { typeName } from '../../model/describe-value.ts'
import { type OptionCheck, type OptionsSpec, option, optionsContract } from '../../model/options-contract.ts'

/**
 * No-progress detection (on by default): a run that repeats itself is nudged, then forced to
 * change for one turn, then stopped with kind `no-progress`. Each threshold starts the ladder; a
 * turn that extends a pattern past its threshold climbs one rung.
 *
 * @example
 * Agent.create({ provider, noProgress: { repeats: 5, exempt: ['poll_job'], loopKey: { search: (a) => (a as { q: string }).q } } })
 */
export interface NoProgressOptions {
  /** The same tool with canonically equal arguments (or `loopKey`) this many times in a row. @default 3 */
  readonly repeats?: number
  /** The same tool failing with the same error class this many times in a row (its other tools' calls between do not count). @default 5 */
  readonly errorRepeats?: number
  /** Calls alternating between two (A-B-A-B...), counted in calls. @default 8 */
  readonly pingPong?: number
  /** Byte-identical assistant text this many turns in a row. @default 3 */
  readonly textRepeats?: number
  /**
   * Per tool: the key two calls are compared by, from the arguments (e.g. a search's query alone,
   * ignoring its page size). Compared as canonical JSON. A key function that throws compares the
   * whole arguments, and so do arguments holding a `__proto__` key (or a `constructor` holding a
   * `prototype`), which the function is never handed.
   */
  readonly loopKey?: Readonly<Record<string, (args: unknown) => unknown>>
  /**
   * Tools whose calls are never counted and never break a pattern: polling tools (`job_status`),
   * scratchpads (`think`).
   */
  readonly exempt?: readonly string[]
  /**
   * The forced change: `'withhold-tool'` sends the next turn without the looping tools (a text loop
   * gets `toolChoice: 'none'`), `'no-tools'` sends it with `toolChoice: 'none'`. @default 'withhold-tool'
   */
  readonly forcedChange?: 'withhold-tool' | 'no-tools'
}

/** Where it is given: `false` turns detection off, an object tunes it, absent keeps the defaults. */
export type NoProgressOption = NoProgressOptions | false

/** The thresholds and keys a detector runs with, defaults applied. */
export interface NoProgressSettings {
  readonly repeats: number
  readonly errorRepeats: number
  readonly pingPong: number
  readonly textRepeats: number
  readonly loopKey: Readonly<Record<string, (args: unknown) => unknown>>
  readonly exempt: readonly string[]
  readonly forcedChange: 'withhold-tool' | 'no-tools'
}

/**
 * The defaults: chosen on the 200 tau-bench GPT-4o airline trajectories (1,164 calls), whose longest
 * run of one call is 1, of one error class on one tool 5 (a real loop, nudged once), of an alternation
 * 7 calls, of one text 1: none is stopped.
 */
export const NO_PROGRESS_DEFAULTS: NoProgressSettings = Object.freeze({
  repeats: 3,
  errorRepeats: 5,
  pingPong: 8,
  textRepeats: 3,
  loopKey: Object.freeze({}),
  exempt: Object.freeze([]),
  forcedChange: 'withhold-tool',
})

const isKeyTable = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((f) => typeof f === 'function')

/** The check of each key of {@link NoProgressOptions}: every options contract that takes them spreads this table. */
export const NO_PROGRESS_CHECKS: OptionsSpec<NoProgressOptions> = {
  repeats: option.integer(2, 1000),
  errorRepeats: option.integer(2, 1000),
  pingPong: option.integer(4, 1000),
  textRepeats: option.integer(2, 1000),
  loopKey: option.where('an object of functions, by tool name', isKeyTable),
  exempt: option.where('an array of tool names', (v) => Array.isArray(v) && Array.from(v).every((n) => typeof n === 'string')),
  forcedChange: option.oneOf('withhold-tool', 'no-tools'),
}

/** The keys of `noProgress`: a misspelt one (`repeat`) is refused with "did you mean". */
export const NO_PROGRESS_OPTIONS = optionsContract<NoProgressOptions>('noProgress', NO_PROGRESS_CHECKS)

/**
 * The settings of a `noProgress` option: `undefined` when it is `false` (detection off), the
 * defaults when absent. A bad value is a `TypeError` or `RangeError` naming `label`.
 */
export function noProgressSettings(given: NoProgressOption | undefined, label: string): NoProgressSettings | undefined {
  if (given === false) return undefined
  if (given === undefined) return NO_PROGRESS_DEFAULTS
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new TypeError(`${label}: noProgress must be false or an options object, got ${typeName(given)}`)
  }
  return resolved(NO_PROGRESS_OPTIONS.check(given))
}

/** Options already checked, with the defaults applied. */
export function resolved(o: NoProgressOptions): NoProgressSettings {
  const d = NO_PROGRESS_DEFAULTS
  return Object.freeze({
    repeats: o.repeats ?? d.repeats,
    errorRepeats: o.errorRepeats ?? d.errorRepeats,
    pingPong: o.pingPong ?? d.pingPong,
    textRepeats: o.textRepeats ?? d.textRepeats,
    // Own keys only, copied: a tool named `__proto__` or `constructor` is a key, never the prototype's.
    loopKey: Object.freeze(Object.fromEntries(Object.entries(o.loopKey ?? {}))),
    exempt: Object.freeze([...(o.exempt ?? [])]),
    forcedChange: o.forcedChange ?? d.forcedChange,
  })
}

/** The check of a `noProgress` key in a host's options contract: `false`, or options its own contract accepts. */
export function noProgressCheck(): OptionCheck {
  return (value) => {
    if (value === false) return undefined
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'false or an options object'
    NO_PROGRESS_OPTIONS.check(value as NoProgressOptions)
    return undefined
  }
}
