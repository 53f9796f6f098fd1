import { assertMethods } from '../model/options-object.ts'
import { summarizeFailure } from './feedback/summarize-failure.ts'
import type { ValidationIssue } from './issue.ts'
import { checkForbiddenKeys } from './json/forbidden-keys.ts'
import { parseJsonSafe } from './json/parse-json-safe.ts'
import type { CompiledSchema, SchemaResult } from './schema/compiled-schema.ts'
import { makeIssue } from './schema/make-issue.ts'
import { ValidationFailure } from './validation-failure.ts'

/** The verdict on one tool call's arguments: the typed input, or a failure of stage `tool-args`. */
export type ToolArgsResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: ValidationFailure; readonly parsed: unknown }

/**
 * Checks a tool call's arguments against the tool's compiled input schema.
 *
 * Arguments that arrived as a string (a provider that did not parse them) are parsed safely first;
 * a string that is not JSON is a failure with a root issue saying so, so the model is told why.
 * Arguments a provider SDK already parsed are refused when they hold a forbidden key (`__proto__`,
 * or `constructor` holding a `prototype`), exactly as parsed text is: a `forbidden_key`
 * issue, never a value that reaches the tool.
 * Synchronous unless the schema answers with a promise, since it runs on every tool call.
 *
 * @example
 * const verdict = validateToolArgs('{"city": 3}', compileSchema(Type.Object({ city: Type.String() })))
 * // { ok: false, failure: ValidationFailure { stage: 'tool-args', ... }, parsed: { city: 3 } }
 */
export function validateToolArgs<T>(args: unknown, schema: CompiledSchema<T>): ToolArgsResult<T> | Promise<ToolArgsResult<T>> {
  assertMethods(schema, ['validate'], 'validateToolArgs: schema', 'a compiled schema (compileSchema(...))')
  const rawOutput = typeof args === 'string' ? args : (safeStringify(args) ?? String(args))
  let value = args
  if (typeof args === 'string') {
    const parsed = parseJsonSafe(args)
    if (!parsed.ok) {
      const detail = parsed.message.replace(/^not valid JSON:\s*/, '')
      const issue = parsed.issue ?? makeIssue({ segments: [], code: 'other', message: `the arguments are not valid JSON: ${detail}` })
      return { ok: false, failure: failureOf([issue], rawOutput, args), parsed: args }
    }
    value = parsed.value
  } else {
    const forbidden = checkForbiddenKeys(args)
    if (forbidden !== undefined) return { ok: false, failure: failureOf([forbidden], rawOutput, args), parsed: args }
  }
  const verdict = schema.validate(value)
  if (verdict instanceof Promise) return verdict.then((settled) => toResult(settled, rawOutput, value))
  return toResult(verdict, rawOutput, value)
}

function toResult<T>(verdict: SchemaResult<T>, rawOutput: string, parsed: unknown): ToolArgsResult<T> {
  if (verdict.ok) return { ok: true, value: verdict.value }
  return { ok: false, failure: failureOf(verdict.issues, rawOutput, parsed), parsed }
}

function failureOf(issues: readonly ValidationIssue[], rawOutput: string, parsed: unknown): ValidationFailure {
  return new ValidationFailure({ stage: 'tool-args', message: summarizeFailure('tool-args', issues), issues, rawOutput, parsed })
}

function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    // Cyclic or BigInt arguments cannot come from a provider's JSON; describe them instead of crashing.
    return undefined
  }
}
