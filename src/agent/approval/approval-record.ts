import { isRecord } from '../../model/is-record.ts'
import { MAX_TIMER_MS } from '../../model/options-contract.ts'
import type { Message } from '../../model/message.ts'
import type { ModelResponse } from '../../model/response.ts'
import { checkStoredMessages } from '../stored-messages.ts'
import { checkForbiddenKeys, safeJsonText } from '../../validation/index.ts'
import type { FunctionCall } from '../function-call.ts'
import type { SettledToolCall } from '../settled-tool-call.ts'
import { ApprovalError } from './approval-error.ts'
import type { ApprovalOutcome, PendingApproval } from './approval-types.ts'
import { approvalIdOf, argsDigest, DIGEST } from './args-digest.ts'
import { turnCallKeys } from '../turn-call-keys.ts'
import type { PausedRunState } from './run-pause.ts'

/** Where an approval stands: waiting, decided, being resumed (by the holder of `claim` until it lapses), or resumed. */
export type ApprovalStatus = 'pending' | 'decided' | 'resuming' | 'done'

/** One approval as a session store holds it: the pending call, the paused run, the decision and the resume's claim. */
export interface ApprovalRecord {
  readonly v: 1
  readonly status: ApprovalStatus
  readonly pending: PendingApproval
  readonly run: PausedRunState
  readonly decision?: { readonly outcome: ApprovalOutcome; readonly reason?: string; readonly decidedAt: number }
  readonly claim?: { readonly token: string; readonly until: number }
}

const STATUSES: readonly ApprovalStatus[] = ['pending', 'decided', 'resuming', 'done']
const OUTCOMES: readonly ApprovalOutcome[] = ['approved', 'rejected', 'expired']

/**
 * The record's text; a tool result JSON cannot write is kept as its text (the model already saw that). Of the
 * paused answer only what a resume reads is kept: a provider's own fields (a raw HTTP response, a cycle, a
 * BigInt) are not the record's, and whatever else JSON cannot write is written safely (see `safeJsonText`).
 */
export function encodeRecord(record: ApprovalRecord): string {
  const settled = record.run.settled.map((s) => ({ entry: jsonSafe(s.entry), result: s.result, call: s.call }))
  // The turn's calls up to the paused one are stored with the arguments the guards left (a redacted card never reaches the store).
  const guarded = [...record.run.settled.map((s) => s.call.args), record.pending.args]
  const response = answerOf(record.run.response, guarded)
  return safeJsonText({ ...record, run: { ...record.run, response, calls: record.run.calls.map(jsonSafe), settled } }) as string
}

/** What a resumed run reads of the paused answer: its text, its calls, its reasoning, its usage and stop reason. */
function answerOf({ content, toolCalls, usage, stopReason, reasoning }: ModelResponse, guarded: readonly unknown[]): ModelResponse {
  const calls = toolCalls.map(({ id, name, args }, i) => ({ id, name, args: i < guarded.length ? guarded[i] : args }))
  return { content, toolCalls: calls, usage, stopReason, ...(reasoning === undefined ? {} : { reasoning }) }
}

/** The record a store handed back for `approvalId`, checked field by field; anything else is a `corrupt-record`. */
export function decodeRecord(sessionKey: string, approvalId: string, body: unknown): ApprovalRecord {
  const bad = (why: string): ApprovalError => new ApprovalError('corrupt-record', approvalId, `the stored approval ${why}`)
  let data: unknown
  try {
    data = typeof body === 'string' ? JSON.parse(body) : undefined
  } catch {
    throw bad('is not JSON')
  }
  if (!isRecord(data) || data['v'] !== 1) throw bad('is not an approval record of version 1')
  if (!STATUSES.includes(data['status'] as ApprovalStatus)) throw bad('has no known status')
  const pending = data['pending']
  if (!isRecord(pending) || pending['approvalId'] !== approvalId) throw bad('is not this approval')
  for (const key of ['runId', 'agent', 'tool', 'callId'] as const) if (typeof pending[key] !== 'string') throw bad(`has no ${key}`)
  if (typeof pending['argsDigest'] !== 'string' || !DIGEST.test(pending['argsDigest'])) throw bad('has no arguments digest')
  for (const key of ['turn', 'requestedAt', 'expiresAt'] as const) if (!Number.isSafeInteger(pending[key])) throw bad(`has no ${key}`)
  // A tool's approvalTimeoutMs is 1 to MAX_TIMER_MS: an expiry outside that window was edited (to keep an approval open for ever).
  const window = (pending['expiresAt'] as number) - (pending['requestedAt'] as number)
  if (window < 1 || window > MAX_TIMER_MS) throw bad('has an expiry no approvalTimeoutMs allows')
  // The id binds the run, turn, call and digest, the digest the tool and its arguments: an edited call (other arguments, another tool) is no record we wrote.
  if (argsDigest(pending['tool'] as string, pending['args']) !== pending['argsDigest']) throw bad('holds arguments or a tool its digest does not name')
  if (approvalIdOf(pending['runId'] as string, pending['turn'] as number, pending['callId'] as string, pending['argsDigest']) !== approvalId)
    throw bad('names a run, turn, call or digest its approval id does not bind')
  const run = data['run']
  if (!isRecord(run) || !Number.isSafeInteger(run['turn']) || !Array.isArray(run['turns']) || !Array.isArray(run['calls']) || !Array.isArray(run['settled']))
    throw bad('has no paused run')
  try {
    checkStoredMessages(sessionKey, [run['user'], ...(run['turns'] as unknown[])])
  } catch (error) {
    throw bad(`holds messages that are not the message format (${(error as Error).message})`)
  }
  if (!(run['calls'] as unknown[]).every(isCall)) throw bad('holds a tool call entry that is not one')
  if (!(run['settled'] as unknown[]).every((s) => isRecord(s) && isCall(s['entry']) && isToolResult(s['result']) && isToolCall(s['call'])))
    throw bad('holds a settled call that is not one')
  // Arguments the resumed run persists or hands to user code: the library writes none a model could not send (see checkForbiddenKeys).
  const settledArgs = (run['settled'] as { readonly call: { readonly args?: unknown } }[]).map((s) => s.call.args)
  const entryArgs = (run['calls'] as Record<string, unknown>[]).flatMap((c) => [c['args'], ...(Array.isArray(c['argsTried']) ? c['argsTried'] : [])])
  if ([pending['args'], ...settledArgs, ...entryArgs].some((args) => checkForbiddenKeys(args) !== undefined))
    throw bad('holds arguments with a prototype key or nesting past 256 levels')
  const response = run['response']
  if (!isRecord(response) || typeof response['content'] !== 'string' || !Array.isArray(response['toolCalls']) || !response['toolCalls'].every(isToolCall))
    throw bad('holds no answer with tool calls')
  // The paused call is the one after those settled before it, named by its key within the turn (a repeated id numbered).
  const at = (run['settled'] as unknown[]).length
  const paused = response['toolCalls'][at]
  if (paused === undefined || turnCallKeys(response['toolCalls'])[at] !== pending['callId'] || paused.name !== pending['tool'])
    throw bad('holds an answer without the paused call after its settled ones')
  const decision = data['decision']
  if (
    decision !== undefined &&
    (!isRecord(decision) || !OUTCOMES.includes(decision['outcome'] as ApprovalOutcome) || !Number.isSafeInteger(decision['decidedAt']))
  )
    throw bad('holds a decision that is not one')
  const claim = data['claim']
  if (claim !== undefined && (!isRecord(claim) || typeof claim['token'] !== 'string' || !Number.isSafeInteger(claim['until'])))
    throw bad('holds a claim that is not one')
  const basedOn = run['basedOn']
  if (basedOn !== undefined && !(Number.isSafeInteger(basedOn) && (basedOn as number) >= 0)) throw bad('holds a conversation version that is not one')
  const state: PausedRunState = {
    user: run['user'] as Message,
    turn: run['turn'] as number,
    turns: run['turns'] as Message[],
    calls: (run['calls'] as FunctionCall[]).map((c) => Object.freeze(c)),
    response: response as unknown as ModelResponse,
    settled: run['settled'] as SettledToolCall[],
    ...(basedOn === undefined ? {} : { basedOn: basedOn as number }),
  }
  return { ...(data as unknown as ApprovalRecord), run: state }
}

function isCall(value: unknown): boolean {
  return isRecord(value) && typeof value['id'] === 'string' && typeof value['name'] === 'string' && typeof value['status'] === 'string'
}

function isToolCall(value: unknown): value is { readonly id: string; readonly name: string } {
  return isRecord(value) && typeof value['id'] === 'string' && typeof value['name'] === 'string'
}

function isToolResult(value: unknown): boolean {
  return isRecord(value) && value['role'] === 'tool' && typeof value['content'] === 'string' && typeof value['toolCallId'] === 'string'
}

/**
 * A call entry as the store keeps it: its arguments tried reduced to the ones that settled it (rejected
 * arguments never reach a store), and its `result` as it is when JSON can write it, else as text.
 */
function jsonSafe(entry: FunctionCall): FunctionCall {
  const stored = { ...entry, argsTried: [entry.args] }
  try {
    JSON.stringify(entry.result)
    return stored
  } catch {
    return { ...stored, result: String(entry.error ?? '(a result JSON cannot write)') }
  }
}
