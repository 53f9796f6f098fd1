import { RETRY_ON_CATEGORIES, type RetryOnCategory, type StrictOutputOptions } from './strict-output-options.ts'
import { StepConfigError, type StepConfigProblem } from './step-config-error.ts'

/** pyconveyor's step keys, as written in its YAML or dict step configs. */
export interface StepConfig {
  readonly max_attempts?: number
  readonly error_feedback?: boolean
  readonly retry_hint?: string
  readonly retry_on?: readonly RetryOnCategory[]
  readonly schema_strict?: boolean
  readonly max_feedback_tokens?: number
  readonly error_template?: string
}

type Check = (value: unknown) => boolean
const positiveInt: Check = (v) => Number.isInteger(v) && (v as number) >= 1
const isBool: Check = (v) => typeof v === 'boolean'
const isString: Check = (v) => typeof v === 'string'
const categories: Check = (v) => Array.isArray(v) && v.every((c) => RETRY_ON_CATEGORIES.includes(c as RetryOnCategory))

const KEYS: Readonly<Record<keyof StepConfig, readonly [Check, string, keyof StrictOutputOptions]>> = {
  max_attempts: [positiveInt, 'a positive integer', 'maxAttempts'],
  error_feedback: [isBool, 'a boolean', 'errorFeedback'],
  retry_hint: [isString, 'a string', 'retryHint'],
  retry_on: [categories, `a list of ${RETRY_ON_CATEGORIES.map((c) => `'${c}'`).join(', ')}`, 'retryOn'],
  schema_strict: [isBool, 'a boolean', 'schemaStrict'],
  max_feedback_tokens: [positiveInt, 'a positive integer', 'maxFeedbackTokens'],
  error_template: [isString, 'a string (a Jinja template)', 'errorTemplate'],
}

/**
 * Reads pyconveyor's snake_case step keys into {@link StrictOutputOptions}. Every unknown key and
 * every wrong type is reported at once, each with what was expected. A `null` value means "not set",
 * as in YAML.
 *
 * @example
 * parseStepConfig({ max_attempts: 2, retry_on: ['parse'] }) // { maxAttempts: 2, retryOn: ['parse'] }
 */
export function parseStepConfig(config: unknown): StrictOutputOptions {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new StepConfigError([{ key: '(root)', expected: 'an object of step keys', received: describe(config) }])
  }
  const problems: StepConfigProblem[] = []
  const options: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(config)) {
    const spec = Object.hasOwn(KEYS, key) ? KEYS[key as keyof StepConfig] : undefined
    if (spec === undefined) {
      problems.push({ key, expected: `no such key (known: ${Object.keys(KEYS).join(', ')})`, received: describe(value) })
      continue
    }
    if (value === null || value === undefined) continue
    const [check, expected, camel] = spec
    if (!check(value)) problems.push({ key, expected, received: describe(value) })
    else options[camel] = Array.isArray(value) ? Object.freeze([...value]) : value
  }
  if (problems.length > 0) throw new StepConfigError(problems)
  return options as StrictOutputOptions
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `list ${clip(JSON.stringify(value))}`
  if (typeof value === 'string') return `string ${clip(JSON.stringify(value))}`
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${String(value)}`
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}
