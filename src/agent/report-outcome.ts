import type { EventHub } from '../events/event-hub.ts'
import type { ToolRetryOutcome } from './function-call.ts'
import { writeLog, type Logger, type LogLevel } from './logger.ts'

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

/**
 * Reports one tool-argument outcome: the `tool_retry_outcome` event and Imperal's log line
 * `validation_retry_outcome tool=<name> ext=<agent> outcome=<outcome> retry_count=<n>`.
 */
export function reportOutcome(
  events: EventHub,
  logger: Logger | undefined,
  report: { readonly runId: string; readonly tool: string; readonly agent: string; readonly outcome: ToolRetryOutcome; readonly retryCount: number },
): void {
  if (events.has('tool_retry_outcome')) events.emit('tool_retry_outcome', report)
  const line = `validation_retry_outcome tool=${report.tool} ext=${report.agent} outcome=${report.outcome} retry_count=${report.retryCount}`
  writeLog(logger, LEVELS[report.outcome], line)
}
