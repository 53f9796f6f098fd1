import type { Scenario } from '../scenarios.ts'

/** A prepared benchmark call: resolves with the accepted value. */
export interface Runnable {
  readonly call: () => Promise<unknown>
  /**
   * Reads the accepted value out of what `call` resolves with, for the one sanity check before
   * timing (so that a contender whose users destructure a result pays no extra async layer per call).
   * @default the resolved value itself
   */
  readonly unwrap?: (result: unknown) => unknown
  /** How the contender does the scenario when it has no built-in way (shown in the table). */
  readonly note?: string
}

/** Why a contender cannot do a scenario, shown in the table instead of a time. */
export interface Unsupported {
  readonly unsupported: string
}

/** One library (or hand-written baseline) under test. */
export interface Contender {
  readonly name: string
  /** Builds the per-call function for a scenario once; the scripted answers are reset on every call. */
  prepare(scenario: Scenario): Runnable | Unsupported | Promise<Runnable | Unsupported>
}

export function isUnsupported(value: Runnable | Unsupported): value is Unsupported {
  return 'unsupported' in value
}
