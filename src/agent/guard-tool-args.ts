import { callUser } from '../model/user-code.ts'
import type { CompiledSchema } from '../validation/index.ts'
import { type ContentGuard, runContentGuards, type ToolTrust } from '../validation/guards/index.ts'
import { guardReport, type GuardReportTarget } from './guard-report.ts'

/** What the content guards made of one call's valid arguments, before `execute`. */
export type GuardedToolArgs =
  /** Allowed, or redacted into arguments that still pass the tool's schema: run the tool on `value`. */
  | { readonly action: 'run'; readonly value: unknown; readonly redacted: boolean }
  /** Blocked, re-asked, or redacted into arguments the schema refuses: answered to the model, never run. */
  | { readonly action: 'refuse'; readonly guard: string; readonly reason: string; readonly redactedArgs?: unknown }
  /** A guard escalated: the run stops for a human. */
  | { readonly action: 'escalate'; readonly guard: string; readonly reason: string }

/** One call's `tool-args` screening: the guards, the tool's trust and input schema, and the run they report to. */
export interface ToolArgsGuarding extends GuardReportTarget {
  readonly guards: readonly ContentGuard[]
  readonly tool: ToolTrust
  readonly input: CompiledSchema<unknown>
  readonly signal?: AbortSignal | undefined
}

/**
 * The `tool-args` guards over a call's arguments after they passed the tool's schema and guards,
 * before `execute`. They read the arguments as JSON; a redaction is parsed back and re-validated
 * against the tool's input schema, so a redaction that breaks a required field (a card number in a
 * numeric field, an emptied enum) is a re-ask of the model, never a call with invalid arguments.
 */
export async function guardToolArgs(value: unknown, run: ToolArgsGuarding): Promise<GuardedToolArgs> {
  const { guards, tool, input } = run
  const text = JSON.stringify(value) ?? 'null'
  const outcome = await runContentGuards(guards, { surface: 'tool-args', text, tool, signal: run.signal, report: guardReport(run) })
  if (outcome.action === 'allow') return { action: 'run', value, redacted: false }
  if (outcome.action === 'escalate') return { action: 'escalate', guard: outcome.guard, reason: outcome.reason }
  if (outcome.action !== 'redact') return { action: 'refuse', guard: outcome.guard, reason: outcome.reason }
  const guard = outcome.guards.join(', ')
  let parsed: unknown
  try {
    parsed = JSON.parse(outcome.text)
  } catch {
    return { action: 'refuse', guard, reason: 'the redacted arguments are no longer JSON: call the tool again without that data' }
  }
  const checked = await callUser(() => input.validate(parsed), run.signal)
  if (checked.ok && checked.value.ok) return { action: 'run', value: checked.value.value, redacted: true }
  return {
    action: 'refuse',
    guard,
    reason: "the redacted arguments no longer pass the tool's input schema: call the tool again without that data, or tell the user it cannot be used",
    redactedArgs: parsed,
  }
}
