import type { EventHub } from '../events/event-hub.ts'
import { typeName } from '../model/describe-value.ts'
import { messageOf } from '../model/message-of.ts'
import { NO_PRICE_TABLE } from '../policies/meter.ts'
import { buildGate, type Gate, runBuilt } from '../gate/create-gate.ts'
import type { GateRunOptions } from '../gate/gate-internals.ts'
import type { GateResult } from '../gate/gate-result.ts'
import type { ModelRequest } from '../model/request.ts'
import { nonNegativeInteger, positiveInteger } from '../model/assert-number.ts'
import type { ToolSpec } from '../model/tool-call.ts'
import { compileSchema, type CompiledSchema, type EchoLimits } from '../validation/index.ts'
import { assertContentGuards, type ContentGuard } from '../validation/guards/index.ts'
import type { AgentSpec } from './agent-options.ts'
import { type NoProgressSettings, noProgressSettings } from './no-progress/no-progress-options.ts'
import { resolveCostBudget } from './cost-budget.ts'
import type { CostBudgetHost } from './run-cost-budget.ts'
import { logValue } from './log-value.ts'
import { logSink, writeLog, type LogSink } from './logger.ts'
import { resolveOutputFallback, type ResolvedOutputFallback } from './output-fallback.ts'
import { runBudgetRule } from './run-budget-rule.ts'
import { feedbackLimits } from './feedback-limits.ts'
import { assertGuards, type ToolGuard } from './tools/guard.ts'
import { idShapeGuard } from './tools/id-shape-guard.ts'
import type { AnyTool } from './tools/tool.ts'

/** The settled configuration every run of an agent reads; built once, when the agent is built. */
export interface AgentRuntime<T> {
  readonly name: string
  readonly gate: Gate<T>
  /** A model call of a run: `gate.run` on a request and options the run built from checked parts, not checked again. */
  readonly callGate: (request: ModelRequest, options: GateRunOptions) => Promise<GateResult<T>>
  readonly system: string | undefined
  readonly events: EventHub
  /** The agent's logger and the form it is called in. */
  readonly logger: LogSink | undefined
  readonly tools: ReadonlyMap<string, AnyTool>
  /** What the provider is told about the tools (empty when the agent has none). */
  readonly toolSpecs: readonly ToolSpec[]
  readonly toolGuards: readonly ToolGuard[]
  /** Content guards on every surface (`Agent.create`'s `contentGuards`); empty when none. */
  readonly contentGuards: readonly ContentGuard[]
  /** Whether a run screens its input and history before the first model call (a guard on the `input` or `history` surface). */
  readonly screensInput: boolean
  /** Whether a tool may pause a run for an approval: only such an agent's runs are watched for a pause. */
  readonly pauses: boolean
  readonly maxToolRetries: number
  /** A prose reply to an argument retry is re-asked once with `toolChoice` pinned (`Agent.create`'s `forcedToolReask`). */
  readonly forcedToolReask: boolean
  /** Prose and identical rejected arguments stop the run (`Agent.create`'s `toolGiveUpStops`). */
  readonly toolGiveUpStops: boolean
  readonly maxIterations: number
  /** The no-progress ladder's settings (`Agent.create`'s `noProgress`); absent when turned off. */
  readonly noProgress: NoProgressSettings | undefined
  readonly retryHint: string | undefined
  /** The gate's feedback bounds, which the tool-argument retry tail honours too. */
  readonly feedbackLimits: EchoLimits
  readonly outputSchema: CompiledSchema<T> | undefined
  readonly outputFallback: ResolvedOutputFallback<T> | undefined
  /** The agent's `costBudget`, and where each run registers the budget check of the gate call it makes; absent without one. */
  readonly costBudget: CostBudgetHost | undefined
}

/** Checks the whole spec and builds the runtime: a misconfiguration fails at `build()`, not mid-run. */
export function createRuntime<T>(spec: AgentSpec): AgentRuntime<T> {
  const { options } = spec
  const { providers, ...gateOptions } = spec.reliability ?? {}
  const costBudget: CostBudgetHost | undefined =
    spec.costBudget === undefined ? undefined : { budget: resolveCostBudget(spec.costBudget), events: spec.events, checks: new WeakMap() }
  const contentGuards = options.contentGuards === undefined ? NO_GUARDS : assertContentGuards(options.contentGuards, 'Agent.create: contentGuards')
  const { gate, internals } = buildGate<T>({
    ...gateOptions,
    // The run's budget first: a user's matching non-fail-fast PreCheck rule must not shadow it.
    ...(costBudget !== undefined ? { preCheck: [runBudgetRule(costBudget.checks, costBudget.budget.onUnpriced), ...(gateOptions.preCheck ?? [])] } : {}),
    providers: providers ?? options.provider,
    ...(spec.middleware.length > 0 ? { middleware: [...(gateOptions.middleware ?? []), ...spec.middleware] } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(spec.outputSchema !== undefined ? { outputSchema: spec.outputSchema as never } : {}),
    // The output and stream guards run in the gate's loop: on every answer of every model turn, and on each streamed delta.
    ...(contentGuards.length > 0 ? { contentGuards } : {}),
    events: spec.events,
  })
  const logger = logSink(options.logger, options.logFormat)
  if (logger !== undefined) {
    logUnpriced(spec.events, logger, options.name ?? 'agent')
    logRuleErrors(spec.events, logger, options.name ?? 'agent')
  }
  const outputSchema = spec.outputSchema === undefined ? undefined : (compileSchema(spec.outputSchema) as CompiledSchema<T>)
  const tools = new Map<string, AnyTool>()
  for (const t of spec.tools) tools.set(t.name, t)
  if (options.toolGuards !== undefined) assertGuards(options.toolGuards, 'Agent.create: toolGuards')
  return Object.freeze({
    name: options.name ?? 'agent',
    gate,
    callGate: (request: ModelRequest, call: GateRunOptions) => runBuilt(internals, request, call),
    system: spec.system,
    events: spec.events,
    logger,
    tools,
    toolSpecs: Object.freeze(spec.tools.map((t) => t.spec)),
    toolGuards: Object.freeze([...(options.toolGuards ?? [idShapeGuard()])]),
    contentGuards,
    screensInput: contentGuards.some((g) => g.surfaces.includes('input') || g.surfaces.includes('history')),
    pauses: spec.tools.some((t) => t.needsApproval !== undefined),
    maxToolRetries: nonNegativeInteger(options.maxToolRetries, 'Agent.create: maxToolRetries', 2),
    forcedToolReask: flag(options.forcedToolReask, 'forcedToolReask'),
    toolGiveUpStops: flag(options.toolGiveUpStops, 'toolGiveUpStops'),
    maxIterations: positiveInteger(options.maxIterations, 'Agent.create: maxIterations', 10),
    noProgress: noProgressSettings(options.noProgress, 'Agent.create'),
    retryHint: spec.reliability?.retryHint,
    feedbackLimits: Object.freeze(feedbackLimits(gate.config)),
    outputSchema,
    outputFallback: spec.outputFallback === undefined ? undefined : resolveOutputFallback(spec.outputFallback as never, outputSchema),
    costBudget,
  })
}

const NO_GUARDS: readonly ContentGuard[] = Object.freeze([])

/** A boolean option of `Agent.create`, `false` when absent. */
function flag(value: unknown, key: string): boolean {
  if (value === undefined) return false
  if (typeof value !== 'boolean') throw new TypeError(`Agent.create: ${key} must be a boolean, got ${typeName(value)}`)
  return value
}

/** Writes every attempt that could not be priced to the agent's logger: a budget must not go quiet. */
function logUnpriced(events: EventHub, logger: LogSink, agent: string): void {
  events.on('cost_unknown', (e) => {
    // An agent without prices was not asked to price: its runs say unpriced, its log is not flooded.
    if (e.reason === NO_PRICE_TABLE) return
    // Names are the user's or a provider's: escaped and bounded, a space or `=` in one cannot forge a field.
    const line = `cost_unknown agent=${logValue(agent)} run=${logValue(e.runId)} attempt=${e.attempt} provider=${logValue(e.provider)} model=${e.model === undefined ? '-' : logValue(e.model)} source=${e.source} reason=${JSON.stringify(e.reason)}`
    writeLog(logger, 'warn', line, {
      event: 'cost_unknown',
      agent,
      run_id: e.runId,
      attempt: e.attempt,
      provider: e.provider,
      model: e.model,
      source: e.source,
      reason: e.reason,
    })
  })
}

/** Writes a rule that throws (or answers something unusable) to the agent's logger, once per rule and place. */
function logRuleErrors(events: EventHub, logger: LogSink, agent: string): void {
  const seen = new Set<string>()
  events.on('rule_error', (e) => {
    const key = `${e.kind}\u0000${e.where}`
    if (seen.has(key) || seen.size >= 100) return
    seen.add(key)
    const reason = messageOf(e.error)
    writeLog(
      logger,
      'warn',
      `rule_error agent=${logValue(agent)} run=${logValue(e.runId)} rule=${JSON.stringify(e.kind)} where=${e.where} reason=${JSON.stringify(reason)}`,
      {
        event: 'rule_error',
        agent,
        run_id: e.runId,
        rule: e.kind,
        where: e.where,
        reason,
      },
    )
  })
}
