import { assertArray, assertObject } from '../model/argument-checks.ts'
import { hasBrand } from '../model/brand.ts'

const BRAND = Symbol.for('reliability-gate.StepConfigError')

/** One rejected key of a step config and what was expected there. */
export interface StepConfigProblem {
  readonly key: string
  readonly expected: string
  /** What was found, rendered for the message. */
  readonly received: string
}

/** Thrown by `strictOutput.fromStepConfig` for unknown keys or wrong types; names every bad key. */
export class StepConfigError extends TypeError {
  override readonly name = 'StepConfigError'
  readonly code = 'ERR_STEP_CONFIG'
  readonly problems: readonly StepConfigProblem[]
  readonly [BRAND] = true

  constructor(problems: readonly StepConfigProblem[]) {
    assertArray(problems, 'StepConfigError: problems', 'an array of { key, expected, received }')
    for (const p of problems) assertObject(p, 'StepConfigError: each problem', '{ key, expected, received }')
    const lines = problems.map((p) => `- '${p.key}': expected ${p.expected}, got ${p.received}`)
    super(`invalid step config:\n${lines.join('\n')}`)
    this.problems = problems
  }
}

/** Brand check for {@link StepConfigError}. */
export function isStepConfigError(value: unknown): value is StepConfigError {
  return hasBrand(value, BRAND)
}
