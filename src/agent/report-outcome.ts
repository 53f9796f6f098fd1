import type { EventHub } from '../events/event-hub.ts'
import type { EventTags } from '../events/event-map.ts'
import type { ToolRetryOutcome } from './function-call.ts'
import { logField, logValue } from './log-value.ts'
import { writeLog, type LogFields, type LogLevel, type LogSink } from './logger.ts'

// Routine outcomes are debug noise; a model that recovered or stopped is worth an info line; the rest
// (budget spent, repeated arguments, a fabricated ID) is what an operator must see.
const LEVELS: Readonly<Record<ToolRetryOutcome, LogLevel>> = {
  no_retry: 'debug',
  success: 'info',
  llm_gave_up: 'info',
  redundant: 'warn',
  exhausted: 'warn',
  fabricated_id_on_retry: 'warn',
}

/** One tool-argument outcome, as reported. */
export interface OutcomeReport extends EventTags {
  readonly runId: string
  readonly tool: string
  readonly agent: string
  readonly outcome: ToolRetryOutcome
  readonly retryCount: number
}

/**
 * Reports one tool-argument outcome: the `tool_retry_outcome` event and Imperal's log line
 * `validation_retry_outcome tool=<name> ext=<agent> outcome=<outcome> retry_count=<n>`; a structured
 * logger gets the same facts as fields (`event`, `tool`, `ext`, `outcome`, `retry_count`, plus
 * `run_id`, `turn` and the run's metadata). Names are cut at 200 characters; in the line, one that
 * is not a plain token (a space, `=`, a quote, a control character) is quoted with JSON escapes.
 */
export function reportOutcome(events: EventHub, sink: LogSink | undefined, report: OutcomeReport): void {
  if (events.has('tool_retry_outcome')) events.emit('tool_retry_outcome', report)
  if (sink === undefined) return
  // The tool name may be one the model invented: escaped and bounded, it cannot forge a line or a field.
  const line = `validation_retry_outcome tool=${logValue(report.tool)} ext=${logValue(report.agent)} outcome=${report.outcome} retry_count=${report.retryCount}`
  writeLog(sink, LEVELS[report.outcome], line, sink.structured ? outcomeFields(report) : NO_FIELDS)
}

const NO_FIELDS: LogFields = Object.freeze({})

function outcomeFields(report: OutcomeReport): LogFields {
  const fields: Record<string, unknown> = {
    event: 'validation_retry_outcome',
    tool: logField(report.tool),
    ext: logField(report.agent),
    outcome: report.outcome,
    retry_count: report.retryCount,
    run_id: report.runId,
  }
  if (report.turn !== undefined) fields.turn = report.turn
  if (report.metadata !== undefined) fields.metadata = report.metadata
  return fields
}
