import { assertArray, assertObject } from '../../model/argument-checks.ts'
import type { CallOutcome, DecisionStep } from './call-summary.ts'
import type { ReplayReport, ReplayTotals } from './replay-report.ts'
import type { TrialsReport } from './run-trials.ts'

/** Longest text of the trace a table cell shows (ids, kinds: the trace may hold anything). */
const MAX_CELL = 48

/**
 * The replay report as a terminal table: one line per call whose decisions changed or that needs a
 * model answer (with the first diverging attempt), then success, attempts, tokens and cost per
 * success before and after. What comes from the trace is shown on one bounded line, control
 * characters escaped: a run id cannot add a line to the report.
 */
export function formatReplay(report: ReplayReport): string {
  assertObject(report, 'formatReplay: report', 'a replay report (what replayTrace answers)')
  assertArray(report.calls, 'formatReplay: report.calls', 'an array of replayed calls')
  const lines: string[] = []
  const same = report.calls.length - report.changed - report.needsModelAnswer
  lines.push(
    `${report.calls.length} calls replayed: ${same} same, ${report.changed} changed, ${report.needsModelAnswer} need a model answer` +
      (report.unreplayable.length > 0 ? `; ${report.unreplayable.length} not replayable` : ''),
  )
  const rows = report.calls.filter((c) => c.status !== 'same')
  if (rows.length > 0) {
    lines.push('')
    lines.push(
      table([
        ['call', 'status', 'first divergence', 'before', 'after'],
        ...rows.map((c) => [
          cell(c.id),
          c.status,
          c.divergence === undefined ? '-' : `attempt ${c.divergence.attempt}: ${step(c.divergence.before)} → ${step(c.divergence.after)}`,
          outcome(c.before.outcome),
          c.needsModelAnswer !== undefined
            ? `needs answer: attempt ${c.needsModelAnswer.attempt} from ${cell(c.needsModelAnswer.provider)}`
            : outcome(c.after.outcome),
        ]),
      ]),
    )
  }
  for (const u of report.unreplayable) lines.push(`not replayable: ${cell(u.id)}: ${cell(u.reason, 160)}`)
  lines.push('')
  lines.push(
    table([
      ['', 'before (recorded)', 'after (replayed)', 'before, same calls'],
      ['success', ...[report.before, report.after, report.beforeDecided].map(success)],
      ['attempts / success', ...[report.before, report.after, report.beforeDecided].map((t) => num(t.attemptsPerSuccess, 2))],
      ['tokens / success', ...[report.before, report.after, report.beforeDecided].map((t) => num(t.tokensPerSuccess, 0))],
      ['cost / success', ...[report.before, report.after, report.beforeDecided].map((t) => usd(t.costPerSuccessUsd))],
      ['cost', ...[report.before, report.after, report.beforeDecided].map((t) => usd(t.costUsd))],
    ]),
  )
  return lines.join('\n')
}

function table(rows: readonly (readonly string[])[]): string {
  // A loop, not Math.max(...): spread over a replay of 200,000 changed calls overflows the stack.
  const widths = (rows[0] ?? []).map((_, i) => rows.reduce((max, r) => Math.max(max, (r[i] ?? '').length), 0))
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

function step(s: DecisionStep | undefined): string {
  if (s === undefined) return 'nothing'
  return `${s.action}${s.errorKind === undefined ? '' : ` (${cell(s.errorKind, 24)})`}${s.action === 'fail-fast' ? ` ${cell(s.kind, 32)}` : ''}`
}

function outcome(o: CallOutcome | undefined): string {
  if (o === undefined) return '-'
  const end = o.outcome === 'ok' ? (o.fromFallback ? 'ok (fallback)' : 'ok') : `fail-fast ${cell(o.kind, 32)}`
  return `${end}, ${o.attempts} attempt${o.attempts === 1 ? '' : 's'}, ${usd(o.costUsd)}`
}

const success = (t: ReplayTotals): string => `${t.succeeded}/${t.calls} (${(t.successRate * 100).toFixed(1)}%)`
const num = (n: number | null, digits: number): string => (n === null ? '-' : n.toFixed(digits))
const usd = (n: number | null): string => (n === null ? '-' : `$${n.toFixed(6)}`)

/** A value of the trace on one bounded line: control characters escaped, cut with an ellipsis. */
export function cell(text: string, max = MAX_CELL): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what is escaped is exactly the control characters
  const one = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return one.length > max ? `${one.slice(0, max - 1)}…` : one
}

/** The trials report as a terminal table: per case its successes, pass^k, pass@k and attempts to success. */
export function formatTrials(report: TrialsReport): string {
  assertObject(report, 'formatTrials: report', 'a trials report (what runTrials answers)')
  assertArray(report.cases, 'formatTrials: report.cases', 'an array of cases')
  const k = report.trials
  const histogram = (h: Readonly<Record<number, number>>) =>
    Object.entries(h)
      .map(([n, count]) => `${n}:${count}`)
      .join(' ') || '-'
  const rows = report.cases.map((c) => [
    cell(c.id),
    `${c.succeeded}/${c.trials}`,
    c.passAll ? 'yes' : 'no',
    c.passAny ? 'yes' : 'no',
    histogram(c.attemptsToSuccess),
    Object.entries(c.failures)
      .map(([kind, n]) => `${cell(kind, 32)}:${n}`)
      .join(' ') || '-',
  ])
  return [
    `${report.cases.length} cases × ${k} trials: pass^${k} ${pct(report.passAll)}, pass@${k} ${pct(report.passAny)}, success per trial ${pct(report.successRate)}`,
    `attempts to success (attempts:trials): ${histogram(report.attemptsToSuccess)}`,
    '',
    table([['case', 'succeeded', `pass^${k}`, `pass@${k}`, 'attempts to success', 'failures'], ...rows]),
  ].join('\n')
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
