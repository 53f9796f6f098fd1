import { positiveInteger } from '../model/assert-number.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { positiveInteger as positiveIntegerCheck } from './option-checks.ts'
import type { ErrorKind } from '../model/error-kind.ts'
import type { ValidationStage } from '../validation/validation-failure.ts'
import { backoffCheck, exponentialBackoff, type Backoff } from './backoff.ts'
import { parseStepConfig, type ParseStepConfigOptions } from './parse-step-config.ts'
import type { ReliabilityConfig } from './reliability-config.ts'
import type { ReliabilityRule } from './rule.ts'
import { stuckRuleFor } from './strict-output-rules.ts'
import { DEFAULT_RETRY_ON, RETRY_ON_CATEGORIES, type RetryOnCategory, type StrictOutputOptions } from './strict-output-options.ts'

/** Default of `maxFeedbackTokens`. */
const DEFAULT_MAX_FEEDBACK_TOKENS = 4000

// The character pre-cut only bounds the tokenizer's work: a token rarely spans more than 16 characters.
const CHARS_PER_TOKEN_BOUND = 16

// Transport categories (pyconveyor's snake_case names, the config boundary), the error kinds they
// cover, and the kebab-case kind of the rule that retries them.
const TRANSPORT: Readonly<Record<'timeout' | 'http_error' | 'rate_limit', { readonly kinds: readonly ErrorKind[]; readonly rule: string }>> = {
  timeout: { kinds: ['timeout'], rule: 'timeout-retry' },
  http_error: { kinds: ['http-5xx', 'network'], rule: 'http-error-retry' },
  rate_limit: { kinds: ['rate-limit'], rule: 'rate-limit-retry' },
}

/** The options `strictOutput` takes, checked once: `{ maxAttempt: 5 }` is refused, not read as the default. */
const STRICT_OUTPUT = optionsContract<StrictOutputOptions>('strictOutput', {
  hasSchema: option.boolean(),
  maxAttempts: positiveIntegerCheck,
  errorFeedback: option.boolean(),
  retryHint: option.string(),
  // Checked with the categories named, below.
  retryOn: option.any(),
  schemaStrict: option.boolean(),
  maxFeedbackTokens: positiveIntegerCheck,
  errorTemplate: option.either(option.string(), option.function()),
  stuckAfter: option.either(option.oneOf(false), positiveIntegerCheck),
  backoff: backoffCheck,
})

/** Options of `strictOutput.fromStepConfig` besides the step keys. */
export interface StepConfigExtras extends Pick<StrictOutputOptions, 'hasSchema' | 'backoff'>, ParseStepConfigOptions {}

/** The options `fromStepConfig` takes besides the step keys, checked once: `{ basedir }` is refused, never read as `process.cwd()`. */
const STEP_CONFIG_EXTRAS = optionsContract<StepConfigExtras>('strictOutput.fromStepConfig', {
  hasSchema: option.boolean(),
  backoff: backoffCheck,
  baseDir: option.nonEmptyString(),
})

/** `strictOutput` plus its reader of pyconveyor step configs. */
export interface StrictOutput {
  (options?: StrictOutputOptions): ReliabilityConfig
  /**
   * Builds the config from pyconveyor's snake_case step keys (`max_attempts`, `error_feedback`,
   * `retry_hint`, `retry_on`, `schema_strict`, `max_feedback_tokens`, `error_template`). Throws a
   * `StepConfigError` naming every unknown key, wrong type and unreadable `error_template` file.
   * An `error_template` path is read relative to `baseDir` (default `process.cwd()`).
   *
   * @example
   * strictOutput.fromStepConfig({ max_attempts: 3, error_template: 'prompts/retry_feedback.j2' }, { baseDir: pipelineDir })
   */
  fromStepConfig(config: unknown, extra?: StepConfigExtras): ReliabilityConfig
}

/**
 * pyconveyor's declarative validation step as a reliability config: retries on the categories of
 * `retryOn` up to `maxAttempts` total attempts, with validation feedback (or blind retries), a
 * bounded echo of the previous output, transport retries with backoff and `retry-after`, optional
 * partial mode, and the JSON repair stage on. Use it in `createGate({...strictOutput()})` or
 * `agent.reliability(strictOutput())`.
 *
 * @example
 * const gate = createGate({ providers, outputSchema: Answer, ...strictOutput({ maxAttempts: 3, retryHint: 'Numbers are plain digits.' }) })
 * @example
 * agent.reliability(strictOutput.fromStepConfig({ max_attempts: 2, retry_on: ['parse', 'schema'] }))
 */
export const strictOutput: StrictOutput = Object.assign(
  function strictOutput(given: StrictOutputOptions = {}): ReliabilityConfig {
    const options = STRICT_OUTPUT.check(given)
    const hasSchema = options.hasSchema ?? true
    const maxAttempts = positiveInteger(options.maxAttempts ?? (hasSchema ? 3 : 1), 'strictOutput: maxAttempts')
    const maxFeedbackTokens = positiveInteger(options.maxFeedbackTokens ?? DEFAULT_MAX_FEEDBACK_TOKENS, 'strictOutput: maxFeedbackTokens')
    const retryOn = new Set(checkedRetryOn(options.retryOn))
    const schedule = typeof options.backoff === 'function' ? options.backoff : exponentialBackoff(options.backoff)
    const postDecide: ReliabilityRule[] = []
    if (options.schemaStrict === false) postDecide.push(partialModeRule)
    const stuck = stuckRuleFor(options.stuckAfter, 'strictOutput: stuckAfter', false)
    if (stuck !== undefined) postDecide.push(stuck)
    if (retryOn.has('parse')) postDecide.push(validationRetry('json-parse', 'parse', maxAttempts))
    if (retryOn.has('schema')) postDecide.push(validationRetry('schema-validate', 'schema', maxAttempts))
    for (const category of ['timeout', 'http_error', 'rate_limit'] as const) {
      if (retryOn.has(category)) postDecide.push(transportRetry(category, maxAttempts, schedule))
    }
    postDecide.push(exhaustedRule(maxAttempts))
    return Object.freeze({
      postDecide: Object.freeze(postDecide),
      maxAttempts,
      errorFeedback: options.errorFeedback ?? hasSchema,
      maxFeedbackTokens,
      maxFeedbackChars: maxFeedbackTokens * CHARS_PER_TOKEN_BOUND,
      feedbackMode: 'latest',
      repair: true,
      ...(options.retryHint !== undefined ? { retryHint: options.retryHint } : {}),
      ...(options.errorTemplate !== undefined ? { errorTemplate: options.errorTemplate } : {}),
    } satisfies ReliabilityConfig)
  },
  {
    fromStepConfig(config: unknown, extra?: StepConfigExtras): ReliabilityConfig {
      const { baseDir, ...rest } = STEP_CONFIG_EXTRAS.check(extra)
      return strictOutput({ ...parseStepConfig(config, baseDir === undefined ? {} : { baseDir }), ...rest })
    },
  },
)

/** Partial mode: an answer that parsed but failed its schema is accepted; the gate returns the issues as warnings. */
const partialModeRule: ReliabilityRule = Object.freeze<ReliabilityRule>({
  when: function schemaPartial(scope) {
    return scope.validationError?.stage === 'schema-validate'
  },
  then: 'ok',
  failuresOnly: true,
  kind: 'schema-partial',
  label: 'partial mode: accept the parsed value, schema issues become warnings',
})

function validationRetry(stage: ValidationStage, category: 'parse' | 'schema', maxAttempts: number): ReliabilityRule {
  return {
    when: function strictOutputRetry(scope) {
      return scope.validationError?.stage === stage && scope.attempt < maxAttempts
    },
    then: 'retry',
    failuresOnly: true,
    kind: `${category}-retry`,
    label: `retry ${category} errors with feedback (up to ${maxAttempts} attempts)`,
  }
}

function transportRetry(category: keyof typeof TRANSPORT, maxAttempts: number, schedule: Backoff): ReliabilityRule {
  const { kinds, rule } = TRANSPORT[category]
  return {
    when: function strictOutputTransportRetry(scope) {
      return kinds.includes(scope.errorKind) && scope.attempt < maxAttempts
    },
    then: 'retry',
    failuresOnly: true,
    kind: rule,
    label: `retry ${category} with backoff (up to ${maxAttempts} attempts)`,
    delayMs: function strictOutputBackoff(scope) {
      // The provider's retry-after wins over the schedule: retrying earlier is refused anyway.
      return scope.retryAfterMs ?? schedule(Math.max(0, scope.transientFailures - 1))
    },
  }
}

function exhaustedRule(maxAttempts: number): ReliabilityRule {
  return {
    when: function strictOutputExhausted(scope) {
      return scope.validationError !== undefined
    },
    then: 'fail-fast',
    failuresOnly: true,
    kind: 'schema-retry-exhausted',
    label: `validation still failing after ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'} (or its category is not in retryOn)`,
  }
}

/** `retryOn`, checked: an array of {@link RETRY_ON_CATEGORIES} (a misspelt one would retry nothing). */
function checkedRetryOn(retryOn: unknown): readonly RetryOnCategory[] {
  if (retryOn === undefined) return DEFAULT_RETRY_ON
  if (!Array.isArray(retryOn)) throw new TypeError(`strictOutput: retryOn must be an array of categories, got ${typeof retryOn}`)
  for (const category of retryOn) {
    if (!(RETRY_ON_CATEGORIES as readonly unknown[]).includes(category)) {
      throw new TypeError(`strictOutput: retryOn holds ${JSON.stringify(category) ?? String(category)}; the categories are ${RETRY_ON_CATEGORIES.join(', ')}`)
    }
  }
  return retryOn as readonly RetryOnCategory[]
}
