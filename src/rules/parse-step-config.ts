import { shownValue } from '../model/describe-value.ts'
import { messageOf } from '../model/message-of.ts'
import { isInlineTemplate, loadErrorTemplate } from './load-error-template.ts'
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
  /** A Jinja template, or the path of a template file (read relative to `baseDir`). */
  readonly error_template?: string
}

/** Options of {@link parseStepConfig}. */
export interface ParseStepConfigOptions {
  /**
   * The folder an `error_template` path is read relative to (pyconveyor reads it relative to the
   * pipeline's folder).
   * @default process.cwd()
   */
  readonly baseDir?: string
}

type Check = (value: unknown) => boolean
const positiveInt: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 1
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
  error_template: [isString, 'a string (a Jinja template or the path of a template file)', 'errorTemplate'],
}

/**
 * Reads pyconveyor's snake_case step keys into {@link StrictOutputOptions}. Every unknown key and
 * every wrong type is reported at once, each with what was expected. A `null` value means "not set",
 * as in YAML, and so does an empty `error_template` (pyconveyor then uses its built-in feedback).
 *
 * `error_template` is a file path, as in pyconveyor's docs (`prompts/retry_feedback.j2`), read
 * relative to `baseDir`; a missing file is a `StepConfigError` naming the path. A value holding Jinja
 * delimiters (`{{`, `{%`, `{#`) or a line break is the template itself.
 *
 * @example
 * parseStepConfig({ max_attempts: 2, retry_on: ['parse'] }) // { maxAttempts: 2, retryOn: ['parse'] }
 * @example
 * parseStepConfig({ error_template: 'prompts/retry_feedback.j2' }, { baseDir: pipelineDir })
 */
export function parseStepConfig(config: unknown, options: ParseStepConfigOptions = {}): StrictOutputOptions {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new StepConfigError([{ key: '(root)', expected: 'an object of step keys', received: describe(config) }])
  }
  let entries: [string, unknown][]
  try {
    entries = Object.entries(config)
  } catch (error) {
    // A Proxy whose traps throw, or a key whose getter throws: the config cannot be read, so it is refused.
    throw new StepConfigError([{ key: '(root)', expected: 'an object of step keys that can be read', received: `one that threw ${clip(messageOf(error))}` }])
  }
  const problems: StepConfigProblem[] = []
  const parsed: Record<string, unknown> = {}
  for (const [key, value] of entries) {
    const spec = Object.hasOwn(KEYS, key) ? KEYS[key as keyof StepConfig] : undefined
    if (spec === undefined) {
      problems.push({ key, expected: `no such key (known: ${Object.keys(KEYS).join(', ')})`, received: describe(value) })
      continue
    }
    if (value === null || value === undefined) continue
    // pyconveyor tests `if error_template_path:`, so an empty template means its built-in feedback.
    if (key === 'error_template' && value === '') continue
    const [check, expected, camel] = spec
    if (!check(value)) problems.push({ key, expected, received: describe(value) })
    else if (key === 'error_template' && !isInlineTemplate(value as string)) {
      const loaded = loadErrorTemplate(value as string, options.baseDir)
      if ('problem' in loaded) problems.push(loaded.problem)
      else parsed[camel] = loaded.template
    } else parsed[camel] = Array.isArray(value) ? Object.freeze([...value]) : value
  }
  if (problems.length > 0) throw new StepConfigError(problems)
  return parsed as StrictOutputOptions
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `list ${clip(listText(value))}`
  if (typeof value === 'string') return `string ${clip(JSON.stringify(value))}`
  if (typeof value === 'object') return 'an object'
  // A function is named, never shown: its source may be long, or private.
  if (typeof value === 'function') return 'a function'
  return `${typeof value} ${clip(String(value))}`
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

/** A list as the message shows it: its JSON, or item by item when JSON cannot write it (a BigInt, a cycle, a throwing `toJSON`). */
function listText(list: readonly unknown[]): string {
  try {
    const json = JSON.stringify(list)
    if (typeof json === 'string') return json
  } catch {
    // Written item by item below.
  }
  try {
    return `[${list.map((item) => (typeof item === 'bigint' ? `${item}n` : shownValue(item))).join(', ')}]`
  } catch {
    return '[a list that cannot be read]'
  }
}
