import type { Logger } from '../../agent/logger.ts'
import type { ToolGuard } from '../../agent/tools/guard.ts'
import type { EventHub } from '../../events/event-hub.ts'
import type { GateConfig } from '../../gate/gate-config.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { assertContentGuards, type ContentGuard } from '../../validation/guards/index.ts'
import { hostGateChecks } from '../host/host-gate-checks.ts'
import { LOGGER_OPTION } from '../host/host-tool-settings.ts'
import { type NoProgressOption, noProgressCheck } from '../../agent/no-progress/no-progress-options.ts'

/** Options of `reliabilityMiddleware`: a gate configuration without providers, and the tool-argument loop's. */
export interface ReliabilityMiddlewareOptions<T = unknown> extends Omit<GateConfig<T>, 'providers' | 'model' | 'events'> {
  /**
   * How `streamText` receives text: `buffer` (only the validated answer, retries invisible) or
   * `passthrough` (as it comes; no retry once text was delivered). @default 'buffer'
   */
  readonly streamMode?: 'buffer' | 'passthrough'
  /** Event hub to emit on; a private one by default. @internal */
  readonly events?: EventHub
  /** Retries per tool call whose arguments fail the tool's input schema (as the Agent's). @default 2 */
  readonly maxToolRetries?: number
  /** Guards run on every tool call's arguments, retries included. @default [idShapeGuard()] */
  readonly toolGuards?: readonly ToolGuard[]
  /** Receives the `validation_retry_outcome ...` log lines. */
  readonly logger?: Logger
  /** The name in those log lines (`ext=`). @default 'ai-sdk' */
  readonly name?: string
  /**
   * A retry of rejected tool arguments answered in prose is asked once more with `toolChoice` pinned
   * to the tool. Off by default: the prose answer stands (`llm_gave_up`). @default false
   */
  readonly forcedToolReask?: boolean
  /**
   * A typed stop instead of the seed's outcomes: prose after rejected arguments throws
   * `tool-call-abandoned`, identical rejected arguments `schema-stuck-loop`. @default false
   */
  readonly toolGiveUpStops?: boolean
  /**
   * No-progress detection on the steps of `generateText`/`streamText` (read from each call's
   * prompt): a loop is nudged, then its tools withheld for one call, then the call throws kind
   * `no-progress`. On by default; `false` turns it off. See also `noProgressSteps()`.
   */
  readonly noProgress?: NoProgressOption
  /**
   * Content guards over each call's prompt before the model sees it: user text as `input`, tool
   * results as `tool-result` (redacted, or withheld behind a notice); over the model's answer
   * (`output`: redacted before the AI SDK sees it, the redaction validated like the answer,
   * `retry-with-feedback` re-asked); and over `streamText`'s deltas (`stream`: held back by the
   * guard's lookback). A block or an escalation throws `guard-blocked` / `guard-escalated`. @default []
   */
  readonly contentGuards?: readonly ContentGuard[]
}

/** The options contract of the AI SDK's `reliabilityMiddleware`: its own keys and the gate's, in its own errors. */
export const RELIABILITY_MIDDLEWARE = optionsContract<ReliabilityMiddlewareOptions>('reliabilityMiddleware', {
  ...hostGateChecks(),
  streamMode: option.where("'buffer' or 'passthrough'", (v) => v === 'buffer' || v === 'passthrough'),
  events: option.object(),
  maxToolRetries: option.where('a non-negative integer', (v) => Number.isSafeInteger(v) && (v as number) >= 0),
  toolGuards: option.array(),
  logger: LOGGER_OPTION,
  name: option.nonEmptyString(),
  forcedToolReask: option.boolean(),
  toolGiveUpStops: option.boolean(),
  noProgress: noProgressCheck(),
  contentGuards: option.where('a list of content guards (contentGuard(), piiGuard(), ...)', (v) => {
    assertContentGuards(v, 'reliabilityMiddleware: contentGuards')
    return true
  }),
})
