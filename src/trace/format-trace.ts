import type { AttemptRecord } from '../gate/attempt-record.ts'
import type { Usage } from '../model/usage.ts'

/** What {@link formatTrace} reads: a gate result, an agent run result, or a `ReliabilityFailFastError`. */
export interface TraceSource {
  readonly runId?: string
  readonly attempts: readonly AttemptRecord[]
  readonly usage: Usage
  readonly costUsd: number
  /** Present on a `ReliabilityFailFastError`. */
  readonly kind?: string
  readonly reason?: string
  readonly phase?: string
  /** Present on results. */
  readonly provider?: string
}

/** Options of {@link formatTrace}. */
export interface FormatTraceOptions {
  /** Longest raw output and feedback shown per attempt, in characters. @default 400 */
  readonly maxChars?: number
}

/**
 * A run's per-attempt trace as plain text, for incident logs: each attempt's provider and model,
 * verdict, tokens, cost and latency, raw output, validation issues with their paths, the decision
 * and the rule that took it, and the ephemeral feedback sent to the next attempt (never persisted);
 * then how the run ended.
 *
 * @example
 * try { await agent.runTyped(input) } catch (error) { if (isReliabilityFailFastError(error)) log.error(formatTrace(error)) }
 */
export function formatTrace(source: TraceSource, options: FormatTraceOptions = {}): string {
  const max = options.maxChars ?? 400
  const lines: string[] = []
  const failed = source.kind !== undefined
  const n = source.attempts.length
  const head = failed ? `fail-fast (${source.kind}) after ${n} attempt${n === 1 ? '' : 's'}` : `ok after ${n} attempt${n === 1 ? '' : 's'}`
  lines.push(`run ${source.runId ?? '(no id)'}: ${head}; ${tokens(source.usage)}, ${usd(source.costUsd)}`)
  for (const a of source.attempts) lines.push(...attemptLines(a, max))
  if (failed) lines.push(`fail-fast: kind=${source.kind} phase=${source.phase ?? '?'}`, indent(clip(source.reason ?? '', max * 2), '  '))
  else lines.push(`accepted from ${source.provider ?? source.attempts.at(-1)?.provider ?? '?'}`)
  return lines.join('\n')
}

function attemptLines(a: AttemptRecord, max: number): string[] {
  const where = a.model === undefined ? a.provider : `${a.provider} (${a.model})`
  const verdict = a.status === 'success' ? 'valid' : a.status
  const out = [
    `attempt ${a.attempt} → ${where}: ${verdict}${a.repaired ? ' (repaired)' : ''}  [${tokens(a.usage)}, ${usd(a.costUsd)}, ${Math.round(a.latencyMs)} ms]`,
  ]
  if (a.rawOutput !== undefined && a.status !== 'success') out.push('  raw output:', indent(clip(a.rawOutput, max), '    '))
  if (a.issues.length > 0) {
    out.push(`  ${a.validationStage ?? 'validation'} issues:`)
    // In the feedback's words (the attempt log's `errors`), one line per issue.
    for (const line of a.errors) out.push(`    - ${line}`)
  } else if (a.errors.length > 0 && a.status !== 'success') {
    out.push(`  ${a.errorType ?? 'error'}: ${clip(a.errors.join('; '), max)}`)
  }
  if (a.decision !== 'ok' || a.ruleKind !== 'ok') {
    const by = a.ruleKind === a.errorKind && a.ruleLabel === undefined ? `no rule matched, default for ${a.errorKind}` : `rule ${a.ruleLabel ?? a.ruleKind}`
    out.push(`  decision: ${a.decision} (${by})`)
  }
  if (a.feedbackSent !== undefined) out.push('  ephemeral feedback sent to the next attempt (never persisted):', indent(clip(a.feedbackSent, max), '    '))
  return out
}

function tokens(u: Usage): string {
  return `${u.inputTokens} in / ${u.outputTokens} out tokens`
}

function usd(cost: number): string {
  return `$${cost.toFixed(cost !== 0 && cost < 0.01 ? 6 : 4)}`
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => by + line)
    .join('\n')
}
