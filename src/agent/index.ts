export { Agent } from './agent.ts'
export type { AgentBuilder, AgentOf } from './agent.ts'
export type { AgentBuilderOf, AgentKind, BuiltAgent } from './agent-builder.ts'
export type { AgentOptions, AgentReliability } from './agent-options.ts'
export type { RunInput, RunOptions } from './run-input.ts'
export type { RunResult } from './run-result.ts'
export type { AgentStream, AgentStreamEvent } from './agent-stream.ts'
export { Session } from './session.ts'
export { isSessionCommitError, SessionCommitError } from './session-commit-error.ts'
export type { AcceptedRun, SessionCommitKind } from './session-commit-error.ts'
export type { SessionOptions } from './stored-conversation.ts'
export type { FunctionCall, ToolCallStatus, ToolRetryOutcome } from './function-call.ts'
export type { LogFields, LogFormat, Logger, LogLevel, StructuredLogger } from './logger.ts'
export type { CostBudget } from './cost-budget.ts'
export type { FallbackOutcome, OutputFallback } from './output-fallback.ts'
export { stableKey } from '../model/stable-key.ts'
export type { NoProgressOption, NoProgressOptions, NoProgressSettings } from './no-progress/index.ts'
export { DEFAULT_ID_FIELDS, DEFAULT_ID_PATTERN, guard, idShapeGuard, tool } from './tools/index.ts'
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
} from './tools/index.ts'
export { ApprovalError, ApprovalPendingError, isApprovalError, isApprovalPendingError } from './approval/approval-error.ts'
export type { ApprovalErrorKind } from './approval/approval-error.ts'
export { argsDigest } from './approval/args-digest.ts'
export type { ApprovalContext, ApprovalDecision, ApprovalOutcome, NeedsApproval, PendingApproval } from './approval/approval-types.ts'
export type { ApprovalClaim } from './approval/session-approvals.ts'
export type { ResumeOptions } from './approval/resume-options.ts'
