export { Agent, AgentBuilder, Session } from './agent/index.ts'
export type { AgentOptions, AgentReliability, RunInput, RunOptions, RunResult } from './agent/index.ts'

// Tools (issue 3): tool(), guards, the ReAct loop with tool-argument retry, outputFallback, costBudget.
export { DEFAULT_ID_FIELDS, DEFAULT_ID_PATTERN, idShapeGuard, stableKey, tool } from './agent/index.ts'
export type {
  AnyTool,
  CostBudget,
  FallbackOutcome,
  FunctionCall,
  GuardContext,
  GuardVerdict,
  IdShapeGuard,
  IdShapeGuardOptions,
  Logger,
  LogLevel,
  OutputFallback,
  Tool,
  ToolCallStatus,
  ToolConfig,
  ToolContext,
  ToolGuard,
  ToolRetryOutcome,
} from './agent/index.ts'
export { validateToolArgs } from './validation/index.ts'
export type { ToolArgsResult } from './validation/index.ts'

export {
  classifyError,
  createGate,
  GENERIC_FEEDBACK,
  isReliabilityFailFastError,
  parseRetryAfter,
  ReliabilityFailFastError,
  withTail,
} from './gate/index.ts'
export type {
  AttemptRecord,
  AttemptStatus,
  ClassifiedError,
  FailFastDetails,
  FallbackAnswer,
  Gate,
  GateConfig,
  GateResult,
  GateRunOptions,
  ProviderEntry,
} from './gate/index.ts'

export { defaultStuckLoopRule, lastNValidationErrorsMatch, strictOutputRules, stuckLoopRule } from './rules/index.ts'
export type { Decision, FeedbackForLLM, FeedbackMode, Phase, ReliabilityConfig, ReliabilityRule, ReliabilityScope, ScopeValidationError } from './rules/index.ts'

// The attempt chain: user middleware with the contract of the built-in policies.
export type { AttemptContext, AttemptResult, Middleware, Next } from './policies/index.ts'

// Resilience (issue 3): pricing and cost, budget rules, transient retries, circuit breakers, the state store.
export { circuitBreaker, costOf, isCircuitBreaker, pricingTable, sharedBudget, sharedRateLimit } from './policies/index.ts'
export { memoryStore } from './store/index.ts'
export type { MemoryStoreOptions, Reservation, StateStore } from './store/index.ts'
export type {
  BreakerPermit,
  BreakerRecord,
  BreakerResult,
  BreakerState,
  BreakerTransition,
  CircuitBreaker,
  CircuitBreakerOptions,
  ModelPrice,
  PriceUsage,
  PricingTable,
  PricingTableOptions,
  RateLimitPermit,
  SharedBudget,
  SharedBudgetOptions,
  SharedRateLimit,
  SharedRateLimitOptions,
} from './policies/index.ts'
export { exponentialBackoff, FAILOVER_KINDS, failoverRule, isBudgetRule, maxCostRule, retryTransient, TRANSIENT_KINDS } from './rules/index.ts'
export type { Backoff, BackoffOptions, BudgetRule, MaxCostOptions, OnUnpriced, RetryTransientOptions } from './rules/index.ts'

// Declarative strict output (issue 4): strictOutput and pyconveyor step configs, truncated-answer retries,
// JSON repair, feedback templates, token-bounded echo.
export { isStepConfigError, parseStepConfig, RETRY_ON_CATEGORIES, retryTruncated, StepConfigError, strictOutput, truncatedFailFast } from './rules/index.ts'
export type { RequestAdjustingRule, RequestAdjustment, RetryOnCategory, RetryTruncatedOptions, StepConfig, StepConfigProblem, StrictOutput, StrictOutputOptions } from './rules/index.ts'
export { countFeedbackTokens, renderErrorTemplate, repairFinalAnswer, repairJson, truncateEcho, validateFinalAnswer } from './validation/index.ts'
export type { ErrorTemplate, FeedbackTemplateVars, RepairKind, RepairOutcome, TemplateError, TemplateRender } from './validation/index.ts'

// Streaming (issue 5): gate.stream in passthrough, buffer and progressive modes; incremental validation.
export { MID_STREAM_NOT_RETRYABLE } from './gate/index.ts'
export type { GateStream, GateStreamEvent, GateStreamOptions, StreamMode } from './gate/index.ts'
export { IncrementalValidator } from './validation/stream/index.ts'
export type { IncrementalState, StreamViolation } from './validation/stream/index.ts'

export { EventHub } from './events/index.ts'
export type { GateEvent, GateEventMap, GateEventName } from './events/index.ts'

export {
  compileSchema,
  extractJson,
  formatFeedback,
  formatIssueLine,
  isValidationFailure,
  parseJsonSafe,
  TRUNCATION_MARKER,
  truncateForFeedback,
  ValidationFailure,
} from './validation/index.ts'
export type { CompiledSchema, InferSchema, IssueCode, OutputSchema, SchemaResult, ValidationIssue, ValidationStage } from './validation/index.ts'

export { addUsage, ERROR_KINDS, isProviderError, ProviderError, ZERO_USAGE } from './model/index.ts'
export type {
  ErrorKind,
  JsonSchema,
  Message,
  ModelRequest,
  ModelResponse,
  Provider,
  ProviderErrorOptions,
  Role,
  StopReason,
  StreamChunk,
  ToolCall,
  ToolSpec,
  Usage,
} from './model/index.ts'
