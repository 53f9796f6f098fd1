import type { StopReason } from '../model/response.ts'

/**
 * Attribute, span and metric names of the OpenTelemetry GenAI semantic conventions this package
 * emits, and its own `reliability_gate.*` names.
 */
/** The GenAI conventions' event for an evaluator's verdict: each content guard's verdict is one. */
export const EVALUATION_RESULT = 'gen_ai.evaluation.result'

export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  agentName: 'gen_ai.agent.name',
  workflowName: 'gen_ai.workflow.name',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  tokenType: 'gen_ai.token.type',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  errorType: 'error.type',
  evaluationName: 'gen_ai.evaluation.name',
  evaluationLabel: 'gen_ai.evaluation.score.label',
  evaluationExplanation: 'gen_ai.evaluation.explanation',
  guardSurface: 'reliability_gate.guard.surface',
  guardFailure: 'reliability_gate.guard.failure',
  runId: 'reliability_gate.run_id',
  /** The agent's model turn a span belongs to (1-based). */
  turn: 'reliability_gate.turn',
  /** How many model turns an agent run took (its root span). */
  turns: 'reliability_gate.turns',
  attempt: 'reliability_gate.attempt',
  attempts: 'reliability_gate.attempts',
  decision: 'reliability_gate.decision',
  ruleKind: 'reliability_gate.rule.kind',
  ruleLabel: 'reliability_gate.rule.label',
  ruleMatched: 'reliability_gate.rule.matched',
  errorKind: 'reliability_gate.error_kind',
  costUsd: 'reliability_gate.cost_usd',
  outcome: 'reliability_gate.outcome',
  failFastKind: 'reliability_gate.fail_fast.kind',
  stage: 'reliability_gate.validation.stage',
  path: 'reliability_gate.validation.path',
  message: 'reliability_gate.validation.message',
  rawOutput: 'reliability_gate.validation.raw_output',
  toolStatus: 'reliability_gate.tool.status',
  toolOutcome: 'reliability_gate.tool.outcome',
  retryCount: 'reliability_gate.tool.retry_count',
  signal: 'reliability_gate.drift.signal',
  state: 'reliability_gate.drift.state',
  metadata: 'reliability_gate.metadata.',
} as const

/** Metric names: the GenAI client metrics and the gate's own. */
export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  validationFailures: 'reliability_gate.validation_failures',
  attempts: 'reliability_gate.attempts',
  retries: 'reliability_gate.retries',
  failFast: 'reliability_gate.fail_fast',
  cost: 'reliability_gate.cost',
  drift: 'reliability_gate.drift',
} as const

// The finish reasons the conventions list (OpenAI's vocabulary), from the provider-neutral stop reason.
const FINISH_REASONS: Readonly<Record<StopReason, string>> = {
  end: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  content_filter: 'content_filter',
  other: 'other',
}

/** `gen_ai.response.finish_reasons` of a stop reason. */
export function finishReason(reason: StopReason): string {
  return FINISH_REASONS[reason] ?? reason
}
