import { boundText, oneLine, safeJsonText } from '../validation/index.ts'
import { type ContentGuard, type GuardOutcome, runContentGuards, type ToolTrust } from '../validation/guards/index.ts'
import { guardReport, type GuardReportTarget } from './guard-report.ts'

/** What the content guards made of one tool result. */
export type GuardedToolResult =
  /** Allowed or redacted: `content` is what the model sees; `result` the value recorded (the redacted text when redacted). */
  | { readonly action: 'pass'; readonly content: string; readonly result: unknown; readonly redactedBy?: readonly string[] }
  /** Blocked (or answered with feedback): the model is shown `notice` instead; not a tool failure, not a retry. */
  | { readonly action: 'withhold'; readonly notice: string; readonly guard: string; readonly reason: string }
  /** A guard escalated: the run stops for a human. */
  | { readonly action: 'escalate'; readonly guard: string; readonly reason: string }

/**
 * The tool's trust as the shipped guards read it: an MCP tool's annotations and its server, when it
 * has them. A tool of `mcpTools` is trusted by the name its caller gave the server (`serverName`),
 * never by the one the server gave itself; a tool of your own making, by its `server`.
 */
export function toolTrust(tool: { readonly name: string }): ToolTrust {
  const t = tool as {
    readonly name: string
    readonly server?: unknown
    readonly serverName?: unknown
    readonly annotations?: { readonly readOnlyHint?: unknown; readonly openWorldHint?: unknown }
  }
  const a = t.annotations
  const server = 'serverName' in t ? t.serverName : t.server
  return Object.freeze({
    name: t.name,
    ...(typeof server === 'string' ? { server } : {}),
    ...(typeof a?.readOnlyHint === 'boolean' ? { readOnly: a.readOnlyHint } : {}),
    ...(typeof a?.openWorldHint === 'boolean' ? { openWorld: a.openWorldHint } : {}),
  })
}

/**
 * Runs the `tool-result` guards over a tool's result before the model sees it. They read the
 * whole text (a credential cut in half by the feedback budget would no longer match); what the
 * model is shown is then bounded as any tool result is.
 */
export async function guardToolResult(
  guards: readonly ContentGuard[],
  tool: ToolTrust,
  result: unknown,
  run: GuardReportTarget & { readonly signal?: AbortSignal | undefined; readonly maxChars: number },
): Promise<GuardedToolResult> {
  const text = typeof result === 'string' ? result : (safeJsonText(result) ?? '(no result)')
  if (!guards.some((g) => g.surfaces.includes('tool-result'))) return { action: 'pass', content: boundText(text, run.maxChars), result }
  const outcome: GuardOutcome = await runContentGuards(guards, { surface: 'tool-result', text, tool, signal: run.signal, report: guardReport(run) })
  switch (outcome.action) {
    case 'allow':
      return { action: 'pass', content: boundText(text, run.maxChars), result }
    case 'redact':
      return { action: 'pass', content: boundText(outcome.text, run.maxChars), result: outcome.text, redactedBy: outcome.guards }
    case 'escalate':
      return { action: 'escalate', guard: outcome.guard, reason: outcome.reason }
    default:
      return { action: 'withhold', notice: withheldNotice(tool.name, outcome.guard, outcome.reason), guard: outcome.guard, reason: outcome.reason }
  }
}

/** What the model is shown for a withheld result: why, and that calling again would not help. */
export function withheldNotice(tool: string, guard: string, reason: string): string {
  return `WITHHELD_RESULT: the result of '${oneLine(tool, 64)}' was withheld by guard '${guard}': ${oneLine(reason, 300)}. This is not a tool failure: calling the tool again would return the same content. Go on without it, or tell the user it could not be used.`
}
