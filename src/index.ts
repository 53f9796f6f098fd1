// The curated public surface: what users call, and as types everything a public signature names
// (`npm run docs` fails on a missing one). Building blocks of the validation layer are on the
// `reliability-gate/validation` subpath; providers, adapters and the Redis store on their own.

// The agent and its tools.
export { Agent } from './agent/index.ts'
export type { AgentBuilder, AgentOptions, AgentReliability, CostBudget, OutputFallback, RunInput, RunOptions, RunResult, Session } from './agent/index.ts'
export type { AgentBuilderOf, AgentKind, AgentOf, AgentStream, AgentStreamEvent, BuiltAgent } from './agent/index.ts'
export { DEFAULT_ID_FIELDS, DEFAULT_ID_PATTERN, guard, idShapeGuard, tool } from './agent/index.ts'
export type { FunctionCall, ToolCallStatus, ToolRetryOutcome } from './agent/index.ts'
// Human approval of tool calls (a tool's needsApproval): the paused run's error, the refusals, the digest an approval binds.
export { ApprovalError, ApprovalPendingError, argsDigest, isApprovalError, isApprovalPendingError } from './agent/index.ts'
export type {
  ApprovalClaim,
  ApprovalContext,
  ApprovalDecision,
  ApprovalErrorKind,
  ApprovalOutcome,
  NeedsApproval,
  PendingApproval,
  ResumeOptions,
} from './agent/index.ts'
export type { NoProgressOption, NoProgressOptions, NoProgressSettings } from './agent/index.ts'
export type {
  AnyTool,
  GuardCheck,
  GuardContext,
  GuardOptions,
  GuardVerdict,
  IdShapeGuard,
  IdShapeGuardOptions,
  Tool,
  ToolConfig,
  ToolContext,
  ToolGuard,
} from './agent/index.ts'
export type { LogFields, LogFormat, Logger, LogLevel, StructuredLogger } from './agent/index.ts'

// The gate.
export { createGate } from './gate/index.ts'
export type { AttemptRecord, AttemptStatus, FallbackAnswer, Gate, GateConfig, GateResult, GateRunOptions, ProviderEntry } from './gate/index.ts'
export type { EventStream, GateStream, GateStreamEvent, GateStreamOptions, StreamMode } from './gate/index.ts'

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
export type {
  Decision,
  FeedbackForLLM,
  FeedbackMode,
  Phase,
  ReliabilityConfig,
  ReliabilityRule,
  ReliabilityScope,
  ScopeValidationError,
} from './rules/index.ts'
export type { RequestAdjustingRule, RequestAdjustment, RetryTransientOptions, RetryTruncatedOptions } from './rules/index.ts'
export type { Backoff, BackoffOptions, BudgetRule, MaxCostOptions, OnUnpriced } from './rules/index.ts'
export type { RetryOnCategory, StepConfigExtras, StrictOutput, StrictOutputOptions, StrictOutputRulesOptions } from './rules/index.ts'
// Requests the provider refuses: remedies and the pre-flight window check.
export { contextWindowCheck, dropRetryEchoRule, largerWindowRule, lowerMaxTokensRule, MODEL_WINDOWS, trimWindowRule } from './rules/index.ts'
export type {
  ContextWindowCheckOptions,
  DropRetryEchoOptions,
  LargerWindowOptions,
  LowerMaxTokensOptions,
  ModelWindow,
  ModelWindows,
  TrimWindowOptions,
} from './rules/index.ts'

// Errors: one family with brands; fail-fast kinds by name.
export { isReliabilityFailFastError, ReliabilityFailFastError } from './gate/index.ts'
export type { FailFastDetails, FailFastPayload } from './gate/index.ts'
export { classifyError } from './gate/index.ts'
export type { ClassifiedError } from './gate/index.ts'
export { FAIL_FAST_KINDS, FailFastKinds, isProviderError, isRejectionKind, OUTPUT_MODES, ProviderError, REJECTION_KINDS } from './model/index.ts'
export type { ErrorKind, FailFastKind, ProviderErrorFields, ProviderErrorOptions, RejectionKind } from './model/index.ts'
export { isValidationFailure, ValidationFailure } from './validation/index.ts'
export type { OutputSchema, ValidationIssue } from './validation/index.ts'
// Content guards on every surface (input, history, tool arguments and results, MCP, output, stream, retry tail).
export { contentGuard, instructionGuard, piiGuard, secretsGuard } from './validation/guards/index.ts'
export type {
  ContentCheck,
  ContentGuard,
  ContentGuardOptions,
  ContentVerdict,
  GuardInput,
  GuardSurface,
  PiiGuardOptions,
  SecretsGuardOptions,
  ShippedGuardOptions,
  ToolTrust,
} from './validation/guards/index.ts'
export type { GuardFailure } from './validation/guards/index.ts'
export { isStepConfigError, StepConfigError } from './rules/index.ts'
export type { StepConfigProblem } from './rules/index.ts'

// Policies of the attempt chain and the state they share across processes.
export { circuitBreaker, pricingTable, sharedBudget, sharedRateLimit } from './policies/index.ts'
export type { AttemptContext, AttemptResult, Middleware, Next } from './policies/index.ts'
export type { ModelPrice, PriceUsage, PricingTable, PricingTableOptions } from './policies/index.ts'
export type { BreakerPermit, BreakerRecord, BreakerResult, BreakerState, BreakerTransition, CircuitBreaker, CircuitBreakerOptions } from './policies/index.ts'
export type { RateLimitPermit, SharedBudget, SharedBudgetOptions, SharedRateLimit, SharedRateLimitOptions } from './policies/index.ts'
export { memoryStore } from './store/index.ts'
export type { MemoryStoreOptions, Reservation, StateStore } from './store/index.ts'

// Conversations that outlive the process: the SessionStore contract and the memory store (SQLite, Redis
// and PostgreSQL stores are on ./sqlite, ./redis and ./postgres).
export { isSessionCommitError, SessionCommitError } from './agent/index.ts'
export type { AcceptedRun, SessionCommitKind, SessionOptions } from './agent/index.ts'
export { isSessionFormatError, memorySessionStore, SESSION_FORMAT, SessionFormatError } from './sessions/index.ts'
export type {
  AppendOutcome,
  AppendRequest,
  ApprovalSlot,
  ApprovalSlots,
  MemorySessionStoreOptions,
  OnConflict,
  SessionStore,
  SessionWindow,
  StoredConversation,
} from './sessions/index.ts'

// Events and what is built on them (tracing and metrics are on the ./otel and ./trace subpaths).
export { driftMonitor } from './events/index.ts'
export type {
  ApprovalCall,
  ApprovalDecidedEvent,
  ApprovalRequestedEvent,
  FailFastEvent,
  GuardVerdictEvent,
  RecoveredEvent,
  ToolEndEvent,
} from './events/index.ts'
export type {
  DriftEvent,
  DriftMonitor,
  DriftMonitorOptions,
  DriftPayload,
  DriftThreshold,
  EventSource,
  NoProgressEvent,
  NoProgressFacts,
  NoProgressPattern,
  NoProgressStep,
} from './events/index.ts'
// A reliability profile measured from the events: how often a retry recovers, per model and error class.
export { reliabilityProfile } from './gate/profile/reliability-profile.ts'
export type { ModelProfile, ProfileEntry, ReliabilityProfile, ReliabilityProfileOptions } from './gate/profile/reliability-profile.ts'
export type { ErrorClass, RecoveryEstimate, RecoveryKey, RecoveryProfileReader } from './rules/recovery-estimate.ts'
export { adaptiveRetry } from './rules/adaptive-retry.ts'
export type { AdaptiveRetryOptions } from './rules/adaptive-retry.ts'
export type { EventTags, GateEvent, GateEventMap, GateEventName, GateEventPayloads, RunOutcome } from './events/index.ts'

// Provider-neutral model types.
export type { Message, ModelRequest, ModelResponse, ReasoningBlock, Role, StopReason, ToolCall, ToolChoice, ToolSpec, Usage } from './model/index.ts'
export type { OutputMode, Provider, ProviderOutputModes, SchemaDialect, StreamChunk, StreamingProvider, WireOutputMode } from './model/index.ts'

// Named by the declarations of internal constructors and options (`Session`, `events`): exported as types
// only so that declaration files resolve for consumers; not part of the API.
export type { EventHub } from './events/index.ts'
export type { LogSink } from './agent/logger.ts'
