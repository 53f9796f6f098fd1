import { logSink, type Logger } from '../../agent/logger.ts'
import { feedbackLimits } from '../../agent/feedback-limits.ts'
import type { ToolArgsSettings } from '../../agent/tool-args-retry.ts'
import { assertGuards, type ToolGuard } from '../../agent/tools/guard.ts'
import { idShapeGuard } from '../../agent/tools/id-shape-guard.ts'
import type { EventHub } from '../../events/event-hub.ts'
import { option, type OptionCheck } from '../../model/options-contract.ts'
import type { HostGateOptions } from './host-gate-checks.ts'

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const

/**
 * The `logger` check of every host middleware, the Agent's own: an object with at least one of the
 * log methods (anything else, a number included, is a `TypeError`).
 */
export const LOGGER_OPTION: OptionCheck = option.where(
  'a logger object with at least one of debug(), info(), warn(), error() (console, pino, winston)',
  (v) => typeof v === 'object' && v !== null && LOG_LEVELS.some((level) => typeof (v as Record<string, unknown>)[level] === 'function'),
)

/** The tool-argument options every host middleware takes, beside the gate's. */
export interface HostToolOptions {
  readonly name?: string | undefined
  readonly logger?: Logger | undefined
  readonly maxToolRetries?: number | undefined
  readonly forcedToolReask?: boolean | undefined
  readonly toolGiveUpStops?: boolean | undefined
  readonly toolGuards?: readonly ToolGuard[] | undefined
}

/** A host's tool-argument settings: the Agent's loop settings, the retry budget and the guards. */
export interface HostToolSettings extends ToolArgsSettings {
  /** Retries per logical tool call, on argument validation failures only. */
  readonly maxToolRetries: number
  /** Guards run on the arguments of every attempt, retries included, and again where the tool runs. */
  readonly toolGuards: readonly ToolGuard[]
}

/**
 * The settings of a host's tool-argument loop (the Agent's `ToolArgsRetry`), read once when the
 * middleware is made: the seed's defaults (2 retries per logical call, `llm_gave_up` and `redundant`
 * go on, the ID-shape guard), the gate's feedback bounds and retry hint, the host's name in the
 * outcome log line. `toolGuards` that are not guards are refused here, with a `TypeError`.
 */
export function hostToolSettings(
  options: HostToolOptions,
  config: Pick<HostGateOptions, 'retryHint' | 'maxFeedbackChars' | 'maxFeedbackTokens'>,
  events: EventHub,
  host: string,
): HostToolSettings {
  if (options.toolGuards !== undefined) assertGuards(options.toolGuards, 'reliabilityMiddleware: toolGuards')
  return {
    name: options.name ?? host,
    events,
    logger: logSink(options.logger),
    retryHint: config.retryHint,
    feedbackLimits: feedbackLimits(config),
    maxToolRetries: options.maxToolRetries ?? 2,
    forcedToolReask: options.forcedToolReask === true,
    toolGiveUpStops: options.toolGiveUpStops === true,
    toolGuards: Object.freeze([...(options.toolGuards ?? [idShapeGuard()])]),
  }
}
