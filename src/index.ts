export { Agent, AgentBuilder, Session } from './agent/index.ts'
export type { AgentOptions, AgentReliability, RunInput, RunOptions, RunResult } from './agent/index.ts'

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
