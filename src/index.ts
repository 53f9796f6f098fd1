// The curated public surface: what users call. Building blocks of the validation layer are on the
// `reliability-gate/validation` subpath; providers, adapters and the Redis store on their own.

// The agent and its tools.
export { Agent } from './agent/index.ts'
export type { AgentOptions, AgentReliability, RunInput, RunOptions, RunResult } from './agent/index.ts'
export { DEFAULT_ID_FIELDS, DEFAULT_ID_PATTERN, guard, idShapeGuard, tool } from './agent/index.ts'
export type { FunctionCall, GuardVerdict, LogFormat, StructuredLogger, Tool, ToolConfig, ToolGuard } from './agent/index.ts'

// The gate.
export { createGate } from './gate/index.ts'
export type { AttemptRecord, Gate, GateConfig, GateResult, GateStream, GateStreamEvent } from './gate/index.ts'

// Rules: stuck loops, strict output (agentfootprint's and pyconveyor's), transient errors, failover, budgets.
export {
  defaultStuckLoopRule,
  exponentialBackoff,
  failoverRule,
  lastNValidationErrorsMatch,
  maxCostRule,
  retryTransient,
  retryTruncated,
  strictOutput,
  strictOutputRules,
  stuckLoopRule,
  TRANSIENT_KINDS,
  truncatedFailFast,
} from './rules/index.ts'
export type { ReliabilityConfig, ReliabilityRule, ReliabilityScope, StrictOutputOptions } from './rules/index.ts'

// Errors: one family with brands; fail-fast kinds by name.
export { isReliabilityFailFastError, ReliabilityFailFastError } from './gate/index.ts'
export { classifyError } from './gate/index.ts'
export { FAIL_FAST_KINDS, FailFastKinds, isProviderError, ProviderError } from './model/index.ts'
export type { ErrorKind, FailFastKind } from './model/index.ts'
export { isValidationFailure, ValidationFailure } from './validation/index.ts'
export type { OutputSchema, ValidationIssue } from './validation/index.ts'
export { isStepConfigError, StepConfigError } from './rules/index.ts'

// Policies of the attempt chain and the state they share across processes.
export { circuitBreaker, pricingTable, sharedBudget, sharedRateLimit } from './policies/index.ts'
export type { AttemptContext, AttemptResult, Middleware, Next, PricingTable } from './policies/index.ts'
export { memoryStore } from './store/index.ts'
export type { Reservation, StateStore } from './store/index.ts'

// Events and what is built on them (tracing and metrics are on the ./otel and ./trace subpaths).
export { driftMonitor } from './events/index.ts'
export type { DriftEvent, DriftMonitor, DriftMonitorOptions, DriftThreshold, EventSource, EventTags, GateEvent, GateEventMap, RunOutcome } from './events/index.ts'

// Provider-neutral model types.
export type { Message, ModelRequest, ModelResponse, Provider, ReasoningBlock, Usage } from './model/index.ts'
