import { approvalSignal, readDecision } from '../../durable/approval-decision.ts'
import { dataCopy } from '../../model/data-copy.ts'
import type { DurablePort, SignalOutcome } from '../../durable/durable-port.ts'
import { DurableRunError, isDurableRunError } from '../../durable/durable-run-error.ts'
import { callAsPromise } from '../../model/call-as-promise.ts'
import { messageOf } from '../../model/message-of.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { callUser } from '../../model/user-code.ts'
import type { EventTags } from '../../events/event-map.ts'
import type { AgentRuntime } from '../agent-runtime.ts'
import type { DurableTurn } from '../durable-run-steps.ts'
import { toolMessages } from '../tool-messages.ts'
import type { AnyTool } from '../tools/tool.ts'
import { approvalIdOf, argsDigest } from './args-digest.ts'
import { idempotencyKeyOf } from '../turn-call-keys.ts'
import type { ApprovalOutcome, PendingApproval } from './approval-types.ts'
import { type ResumedApproval, RunPause } from './run-pause.ts'

/** How long an approval waits by default: 24 hours. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 86_400_000

/** Whether a call that passed validation and every guard runs: with its idempotency key when approved, else the result the model is told. */
export type ApprovalVerdict =
  | { readonly run: true; readonly idempotencyKey?: string }
  | { readonly run: false; readonly status: 'approval-rejected' | 'approval-expired'; readonly message: string }

/** What an approval needs of the tool call's run (a `ToolCallHost` is one). */
export interface ApprovalHost {
  readonly runId: string
  readonly tags: EventTags
  readonly signal: AbortSignal | undefined
  readonly runtime: Pick<AgentRuntime<unknown>, 'name' | 'events' | 'feedbackLimits'>
  readonly durable?: DurableTurn | undefined
  readonly approval?: ResumedApproval | undefined
}

const RUN: ApprovalVerdict = Object.freeze({ run: true })

/**
 * The tool's `needsApproval` for the call `callId` on `value` (its validated, guarded arguments); `callId` is the call's
 * key within its turn (`turnCallKeys`: a repeated id numbered), so two calls of a turn never share an approval or a key:
 * no approval runs it; else `approval_requested` is emitted and the decision is the resumed run's
 * (its approval id binds the arguments' digest), the port's signal (a durable run waits, paused in
 * its engine), or the run pauses (`RunPause`: the session store holds the approval).
 * `approval_decided` is emitted before the decision is acted on.
 */
export async function approvalOf(host: ApprovalHost, tool: AnyTool, value: unknown, callId: string): Promise<ApprovalVerdict> {
  const rt = host.runtime
  // A resumed run's paused call keeps its decision even when the tool no longer asks for approval: a rejection stands.
  const resumed = host.approval
  if (resumed === undefined && !(await needsApproval(host, tool, value, callId))) return RUN
  const turn = host.tags.turn ?? 1
  const digest = argsDigest(tool.name, value)
  const approvalId = approvalIdOf(host.runId, turn, callId, digest)
  if (resumed !== undefined && resumed.approvalId !== approvalId && !(await needsApproval(host, tool, value, callId))) return RUN
  const timeoutMs = tool.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS
  const port = host.durable?.tools.port
  const wait = port?.awaitSignal
  const who = { runId: host.runId, ...host.tags, agent: rt.name, tool: tool.name, callId, approvalId, argsDigest: digest }
  if (rt.events.has('approval_requested'))
    rt.events.emit('approval_requested', { ...who, args: value, timeoutMs, via: wait === undefined || resumed !== undefined ? 'session' : 'engine' })
  let decided: { readonly outcome: ApprovalOutcome; readonly reason: string | undefined }
  if (resumed !== undefined && resumed.approvalId === approvalId) decided = resumed
  else if (port !== undefined && wait !== undefined) {
    const signal = await raceAbort(signalOf(port, wait, approvalSignal(approvalId), timeoutMs), host.signal)
    decided = signal.received ? decisionOf(signal.value, digest) : { outcome: 'expired', reason: undefined }
  } else {
    const requestedAt = Date.now()
    // Named field by field: the run's tags (its metadata) are not the approval's, and are not stored.
    const pending: PendingApproval = {
      approvalId,
      runId: host.runId,
      sessionId: undefined,
      agent: rt.name,
      tool: tool.name,
      callId,
      turn,
      argsDigest: digest,
      args: value,
      requestedAt,
      expiresAt: requestedAt + timeoutMs,
    }
    throw new RunPause(pending)
  }
  if (rt.events.has('approval_decided')) rt.events.emit('approval_decided', { ...who, outcome: decided.outcome, reason: decided.reason })
  const max = rt.feedbackLimits.maxChars
  if (decided.outcome === 'approved') return { run: true, idempotencyKey: idempotencyKeyOf(host.runId, turn, callId) }
  if (decided.outcome === 'expired') return { run: false, status: 'approval-expired', message: toolMessages.approvalExpired(tool.name) }
  return { run: false, status: 'approval-rejected', message: toolMessages.approvalRejected(tool.name, decided.reason, max) }
}

/** `needsApproval` on the call: a function that throws, rejects or answers anything but `false` asks for approval. */
async function needsApproval(host: ApprovalHost, tool: AnyTool, value: unknown, callId: string): Promise<boolean> {
  const needs = tool.needsApproval
  if (needs === undefined || needs === false) return false
  if (needs === true) return true
  if (typeof needs !== 'function') return true
  // A copy: the check cannot edit the arguments the approval binds and the tool runs on.
  const args = dataCopy(value)
  const answer = await callUser(() => needs(args, { runId: host.runId, callId, agent: host.runtime.name }), host.signal)
  return !answer.ok || answer.value !== false
}

/**
 * The port's wait for the decision as one promise of an outcome: a throw, a rejection or an answer that is no
 * `{ received }` (a port of yours, an engine answering nothing) is the engine's failure, `engine-failed`, and stops the run typed.
 */
function signalOf(port: DurablePort, wait: NonNullable<DurablePort['awaitSignal']>, name: string, timeoutMs: number): Promise<SignalOutcome> {
  const failed = (reason: string, cause?: unknown): DurableRunError =>
    new DurableRunError('engine-failed', { runId: port.runId, step: name, reason: `the engine did not deliver the signal: ${reason}`, cause })
  return callAsPromise((n: string, ms: number) => wait.call(port, n, ms), name, timeoutMs).then(
    (outcome: unknown) => {
      if (typeof outcome !== 'object' || outcome === null || typeof (outcome as { received?: unknown }).received !== 'boolean')
        throw failed('it answered no { received } outcome')
      const { received, value } = outcome as { received: boolean; value?: unknown }
      return received ? { received: true, value } : { received: false }
    },
    (cause: unknown) => {
      throw isDurableRunError(cause) ? cause : failed(messageOf(cause), cause)
    },
  )
}

/** The decision an engine delivered: one that cannot be read, or that names other arguments, is a rejection (the call does not run). */
function decisionOf(value: unknown, digest: string): { readonly outcome: ApprovalOutcome; readonly reason: string | undefined } {
  const decision = readDecision(value)
  if (typeof decision === 'string') return { outcome: 'rejected', reason: `the decision sent could not be read (${decision})` }
  if (decision.argsDigest !== undefined && decision.argsDigest !== digest)
    return { outcome: 'rejected', reason: 'the decision sent was for other arguments than these' }
  return { outcome: decision.approved ? 'approved' : 'rejected', reason: decision.reason }
}
