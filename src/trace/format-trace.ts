import type { AttemptRecord } from '../gate/attempt-record.ts'
import { typeName } from '../model/describe-value.ts'
import { messageOf } from '../model/message-of.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { optionsObject } from '../model/options-object.ts'
import type { Usage } from '../model/usage.ts'

/** What {@link formatTrace} reads: a gate result, an agent run result, or a `ReliabilityFailFastError`. */
export interface TraceSource {
  readonly runId?: string
  readonly attempts: readonly AttemptRecord[]
  readonly usage: Usage
  readonly costUsd: number
  /** Some attempt could not be priced: `costUsd` leaves it out (printed as `+ unpriced`, never as free). */
  readonly unpriced?: boolean
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

/** The options of {@link formatTrace}, declared once. */
export const FORMAT_TRACE = optionsContract<FormatTraceOptions>('formatTrace', {
  maxChars: option.where('a positive integer', (v) => Number.isSafeInteger(v) && (v as number) > 0),
})

/**
 * A run's per-attempt trace as plain text, for incident logs: each attempt's provider and model,
 * verdict, tokens, cost and latency, raw output, validation issues with their paths, the decision
 * and the rule that took it, and the ephemeral feedback sent to the next attempt (never persisted);
 * then how the run ended.
 *
 * @example
 * try { await agent.runTyped(input) } catch (error) { if (isReliabilityFailFastError(error)) log.error(formatTrace(error)) }
 */
export function formatTrace(source: TraceSource, options?: FormatTraceOptions): string {
  if (typeof source !== 'object' || source === null || !Array.isArray(source.attempts)) {
    throw new TypeError(`formatTrace: expected a gate result, an agent run result or a ReliabilityFailFastError (with attempts), got ${typeName(source)}`)
  }
  const o = FORMAT_TRACE.check(optionsObject(options, 'formatTrace'))
  const max = o.maxChars ?? 400
  const lines: string[] = []
  const failed = source.kind !== undefined
  const n = source.attempts.length
  const unpriced = source.unpriced === true || source.attempts.some((a) => a?.unpriced === true)
  const head = failed ? `fail-fast (${one(source.kind)}) after ${n} attempt${n === 1 ? '' : 's'}` : `ok after ${n} attempt${n === 1 ? '' : 's'}`
  lines.push(`run ${one(source.runId ?? '(no id)')}: ${head}; ${tokens(source.usage)}, ${usd(source.costUsd, unpriced)}`)
  for (const a of source.attempts) lines.push(...attemptLines(a, max))
  if (failed) lines.push(`fail-fast: kind=${one(source.kind)} phase=${one(source.phase ?? '?')}`, indent(clip(text(source.reason), max * 2), '  '))
  else lines.push(`accepted from ${one(source.provider ?? source.attempts.at(-1)?.provider ?? '?')}`)
  return lines.join('\n')
}

function attemptLines(a: AttemptRecord, max: number): string[] {
  if (typeof a !== 'object' || a === null) return [`attempt ? → (not an attempt record: ${typeName(a)})`]
  const where = a.model === undefined ? one(a.provider) : `${one(a.provider)} (${one(a.model)})`
  const verdict = a.status === 'success' ? 'valid' : one(a.status)
  const latency = typeof a.latencyMs === 'number' && Number.isFinite(a.latencyMs) ? `${Math.round(a.latencyMs)} ms` : '? ms'
  const out = [
    `attempt ${one(a.attempt)} → ${where}: ${verdict}${a.repaired === true ? ' (repaired)' : ''}  [${tokens(a.usage)}, ${usd(a.costUsd, a.unpriced === true)}, ${latency}]`,
  ]
  const errors = Array.isArray(a.errors) ? a.errors.map(text) : []
  if (a.rawOutput !== undefined && a.status !== 'success') out.push('  raw output:', indent(clip(text(a.rawOutput), max), '    '))
  if (Array.isArray(a.issues) && a.issues.length > 0) {
    out.push(`  ${one(a.validationStage ?? 'validation')} issues:`)
    // In the feedback's words (the attempt log's `errors`), one line per issue.
    for (const line of errors) out.push(`    - ${one(line)}`)
  } else if (errors.length > 0 && a.status !== 'success') {
    out.push(`  ${one(a.errorType ?? 'error')}: ${one(clip(errors.join('; '), max))}`)
  }
  if (a.decision !== 'ok' || a.ruleKind !== 'ok') {
    const by =
      a.ruleKind === a.errorKind && a.ruleLabel === undefined ? `no rule matched, default for ${one(a.errorKind)}` : `rule ${one(a.ruleLabel ?? a.ruleKind)}`
    out.push(`  decision: ${one(a.decision)} (${by})`)
  }
  if (a.feedbackSent !== undefined)
    out.push('  ephemeral feedback sent to the next attempt (never persisted):', indent(clip(text(a.feedbackSent), max), '    '))
  return out
}

function tokens(u: Usage | undefined): string {
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? String(n) : '?')
  return `${count(u?.inputTokens)} in / ${count(u?.outputTokens)} out tokens`
}

/** A cost as printed: unpriced is not free, so an unpriced `$0` is `unpriced` and a partly priced cost `$x + unpriced`. */
function usd(cost: unknown, unpriced: boolean): string {
  if (typeof cost !== 'number' || !Number.isFinite(cost)) return unpriced ? 'unpriced' : 'cost unknown'
  const dollars = `$${cost.toFixed(cost !== 0 && cost < 0.01 ? 6 : 4)}`
  if (!unpriced) return dollars
  return cost === 0 ? 'unpriced' : `${dollars} + unpriced`
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : messageOf(value)
}

// A field printed inside a line (a provider, model, rule or kind name) cannot start another line: C1
// controls too (NEL is a line break to some log readers).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g
// In a block of text (a raw output, the feedback), every line break a log reader or terminal may honour starts
// an indented line, and any other control (a terminal escape) is shown escaped.
const OTHER_BREAKS = /\r\n?|[\u0085\u2028\u2029]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

const escaped = (c: string): string => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

function one(value: unknown): string {
  return clip(text(value), 200).replace(BREAKS, escaped)
}

function indent(text: string, by: string): string {
  return text
    .replace(OTHER_BREAKS, '\n')
    .replace(CONTROLS, escaped)
    .split('\n')
    .map((line) => by + line)
    .join('\n')
}
