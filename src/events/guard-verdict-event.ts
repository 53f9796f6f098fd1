import type { GuardFailure, GuardSurface } from '../validation/guards/index.ts'

/**
 * The payload of `guard_verdict`: one content guard's verdict on one surface, emitted before it is
 * acted on. It never carries the text the guard saw (that may be what it redacts).
 */
export interface GuardVerdictEvent {
  readonly runId: string
  /** Who ran the guard: the gate's loop (a model's answer and its stream, in every host), the Agent, the AI SDK or LangChain middleware, the MCP tools. */
  readonly host: 'gate' | 'agent' | 'ai-sdk' | 'langchain' | 'mcp'
  readonly guard: string
  readonly surface: GuardSurface
  readonly action: 'allow' | 'redact' | 'retry-with-feedback' | 'block' | 'escalate'
  /** The guard's reason or feedback, or why it failed. */
  readonly reason?: string
  /** The tool whose arguments, result or description the guard saw. */
  readonly tool?: string
  /** The guard gave no verdict of its own (it threw, rejected, timed out...): `action` is its `onError`. */
  readonly failure?: GuardFailure
}
