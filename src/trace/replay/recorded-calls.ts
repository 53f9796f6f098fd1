import { ERROR_KINDS, type ErrorKind } from '../../model/error-kind.ts'
import { isRecord } from '../../model/is-record.ts'
import type { Message } from '../../model/message.ts'
import type { ModelResponse, StopReason } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { Usage } from '../../model/usage.ts'
import type { TraceRecord } from '../trace-record.ts'
import type { RecordedAnswer, RecordedAttempt, RecordedCall, UnreplayableCall } from './recorded-call.ts'

const STOP_REASONS: readonly string[] = ['end', 'tool_use', 'max_tokens', 'content_filter', 'other']
/** Kinds the gate gives an attempt that never reached the provider. */
const NO_CALL: readonly string[] = ['circuit-open', 'budget-exceeded']
/**
 * Most messages a replayed request is rebuilt with: the trace holds only their count, and a count
 * edited to 1e9 must not make a replay build a billion placeholders.
 */
export const MAX_REPLAYED_MESSAGES = 100_000

/** The calls of a trace, and the stretches that cannot be replayed. */
export interface RecordedCalls {
  readonly calls: readonly RecordedCall[]
  readonly unreplayable: readonly UnreplayableCall[]
}

interface Open {
  readonly runId: string
  readonly index: number
  readonly records: TraceRecord[]
  readonly failuresBefore: number
  readonly toolRetry: boolean
  readonly agent: string | undefined
}

/**
 * Splits a trace's records into its gate calls, each with what its attempts were answered. Records
 * come from a file, so nothing is trusted: a call whose attempt lacks a usable answer, usage or
 * number, or that never ended (a trace cut short), is listed as unreplayable with why, never guessed.
 */
export function recordedCalls(records: readonly TraceRecord[]): RecordedCalls {
  const open = new Map<string, Open>()
  const callsOfRun = new Map<string, number>()
  const failures = new Map<string, number>()
  const toolOpen = new Set<string>()
  const agents = new Map<string, string>()
  const ended: Open[] = []
  const unreplayable: UnreplayableCall[] = []
  for (const record of records) {
    if (!isRecord(record) || typeof record.runId !== 'string') continue
    const { runId, type } = record
    const current = open.get(runId)
    if (type === 'run_start') {
      if (current !== undefined) unreplayable.push({ id: idOf(current), runId, reason: 'a call started before the previous one of its run ended' })
      const index = (callsOfRun.get(runId) ?? 0) + 1
      callsOfRun.set(runId, index)
      open.set(runId, { runId, index, records: [record], failuresBefore: failures.get(runId) ?? 0, toolRetry: toolOpen.has(runId), agent: agents.get(runId) })
      continue
    }
    if (type === 'agent_run_start' && typeof record.agent === 'string') agents.set(runId, record.agent)
    if (type === 'validation_failed') failures.set(runId, (failures.get(runId) ?? 0) + 1)
    if (type === 'tool_start') toolOpen.add(runId)
    if (type === 'tool_end') toolOpen.delete(runId)
    if (current === undefined) continue
    current.records.push(record)
    if (type === 'run_end') {
      open.delete(runId)
      ended.push(current)
    }
  }
  const shownId = (call: Open): string => ((callsOfRun.get(call.runId) ?? 1) > 1 ? idOf(call) : call.runId)
  for (const rest of open.values()) unreplayable.push({ id: shownId(rest), runId: rest.runId, reason: 'the call never ended in the trace (no run_end)' })
  const calls: RecordedCall[] = []
  for (const one of ended) {
    const id = shownId(one)
    const call = readCall(id, one)
    if (typeof call === 'string') unreplayable.push({ id, runId: one.runId, reason: call })
    else calls.push(call)
  }
  return { calls, unreplayable }
}

const idOf = (call: Open): string => `${call.runId}#${call.index}`

/** The call, or why it cannot be replayed. */
function readCall(id: string, open: Open): RecordedCall | string {
  const attempts: RecordedAttempt[] = []
  const providers: { name: string; model: string | undefined }[] = []
  let start: TraceRecord | undefined
  let model: string | undefined
  let baseMessages = 0
  let baseTail: readonly Message[] = []
  const costs = costsOf(open.records)
  // The run options the replay passes on are the recorded ones: one no gate run takes is not guessed at.
  if (open.runId === '') return 'its runId is empty (no gate run has one)'
  const turn = open.records[0]?.turn
  if (turn !== undefined && !isCount(turn, 0)) return `its turn is not a count (${typeof turn === 'number' ? String(turn) : typeof turn})`
  for (const r of open.records) {
    if (r.type === 'attempt_start') {
      const attempt = r.attempt
      const provider = r.provider
      const idx = r.providerIdx
      if (!isCount(attempt) || typeof provider !== 'string' || !isCount(idx, 0)) return `attempt_start without a usable attempt, provider or providerIdx`
      // A gate starts on its first provider and moves to the next one at most: a skipped index is no gate's.
      if (idx > providers.length) return `attempt ${attempt}: providerIdx ${idx} skips providers (the call had used ${providers.length})`
      const request = isRecord(r.request) ? r.request : {}
      const tail = Array.isArray(request.tail) ? request.tail : []
      if (start === undefined) {
        model = typeof request.model === 'string' ? request.model : undefined
        if (isCount(request.messages, 0) && request.messages > MAX_REPLAYED_MESSAGES) {
          return `attempt 1: its request held ${request.messages} messages, more than a replay rebuilds (${MAX_REPLAYED_MESSAGES})`
        }
        baseMessages = isCount(request.messages, 0) ? Math.max(0, request.messages - tail.length) : 1
        const messages = tail.map(messageOf)
        if (messages.some((m) => m === undefined)) return 'attempt 1: its request tail holds a message without a role and text content'
        baseTail = messages as Message[]
      }
      if (providers[idx] === undefined) providers[idx] = { name: provider, model: typeof r.model === 'string' ? r.model : undefined }
      start = r
      continue
    }
    if (r.type === 'attempt_end') {
      if (start === undefined || r.attempt !== start.attempt) return `attempt_end of attempt ${String(r.attempt)} without its attempt_start`
      const answer = answerOf(r)
      if (typeof answer === 'string') return `attempt ${String(r.attempt)}: ${answer}`
      const request = isRecord(start.request) ? start.request : {}
      attempts.push({
        attempt: start.attempt as number,
        provider: start.provider as string,
        model: typeof start.model === 'string' ? start.model : undefined,
        answer,
        costUsd: costs.has(r.attempt as number) ? costs.get(r.attempt as number) : 0,
        tail: JSON.stringify(tailOf(request.tail)),
      })
      continue
    }
    const last = attempts.at(-1)
    if (r.type === 'fail_fast' && last !== undefined && r.attempt === last.attempt && last.answer.kind === 'error') {
      attempts[attempts.length - 1] = {
        ...last,
        answer: { ...last.answer, message: typeof r.errorMessage === 'string' ? r.errorMessage : quotedMessage(r.reason, last.answer.errorKind) },
      }
    }
  }
  return {
    id,
    runId: open.runId,
    agent: open.agent,
    turn: turn as number | undefined,
    metadata: isRecord(open.records[0]?.metadata) ? (open.records[0]?.metadata as Record<string, unknown>) : undefined,
    toolRetry: open.toolRetry,
    model,
    baseMessages: Math.max(baseTail.length === 0 ? 1 : 0, baseMessages),
    baseTail,
    // The meter's reason when a gate has no pricing at all (NO_PRICE_TABLE, and NO_PRICING beside a budget).
    unpriced: open.records.some(
      (r) => r.type === 'cost_unknown' && r.source === 'meter' && typeof r.reason === 'string' && r.reason.startsWith('no pricing is configured'),
    ),
    validationFailuresBefore: open.failuresBefore,
    providers,
    attempts,
    records: open.records,
  }
}

/**
 * What each attempt cost, by attempt number (the meter reports it inside the attempt, before its
 * `attempt_end`): `undefined` for an attempt the meter could not price.
 */
function costsOf(records: readonly TraceRecord[]): Map<number, number | undefined> {
  const costs = new Map<number, number | undefined>()
  for (const r of records) {
    if (typeof r.attempt !== 'number') continue
    if (r.type === 'cost_unknown' && r.source === 'meter') costs.set(r.attempt, undefined)
    else if (r.type === 'cost_tick' && !(costs.has(r.attempt) && costs.get(r.attempt) === undefined)) {
      const cost = r.attemptCostUsd
      costs.set(r.attempt, typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : undefined)
    }
  }
  return costs
}

/** The recorded answer of an `attempt_end`, or what is wrong with it. */
function answerOf(r: TraceRecord): RecordedAnswer | string {
  const kind = r.errorKind
  if (typeof kind !== 'string' || !(ERROR_KINDS as readonly string[]).includes(kind)) return `unknown errorKind ${JSON.stringify(kind)}`
  const response = r.response
  if (response === undefined || response === null) {
    if (kind === 'ok') return 'accepted without a recorded response'
    return NO_CALL.includes(kind) ? { kind: 'no-call', errorKind: kind as ErrorKind } : { kind: 'error', errorKind: kind as ErrorKind, message: undefined }
  }
  if (!isRecord(response)) return 'the response is not an object'
  const usage = usageOf(r.usage)
  if (usage === undefined) return 'no usable usage (inputTokens, outputTokens)'
  if (typeof response.content !== 'string') return 'the response has no text content (redacted or cut?)'
  const stop = response.stopReason
  if (typeof stop !== 'string' || !STOP_REASONS.includes(stop)) return `unknown stopReason ${JSON.stringify(stop)}`
  const calls = response.toolCalls ?? []
  if (!Array.isArray(calls) || !calls.every(isToolCall)) return 'toolCalls are not a list of { id, name, args }'
  const answer: ModelResponse = { content: response.content, toolCalls: calls as ToolCall[], usage, stopReason: stop as StopReason }
  return { kind: 'response', response: answer }
}

/** The provider's error message a fail-fast reason quotes (`provider call failed (<kind>: <message>); ...`). */
/** The provider's message quoted in the reason of a recording made before `fail_fast` carried `errorMessage`. */
function quotedMessage(given: unknown, kind: string): string | undefined {
  const reason = typeof given === 'string' ? given.replace(/^reliability-(?:pre-check|post-decide): /, '') : given
  const prefix = `provider call failed (${kind}: `
  if (typeof reason !== 'string' || !reason.startsWith(prefix)) return undefined
  const end = reason.lastIndexOf('); ')
  return end < prefix.length ? undefined : reason.slice(prefix.length, end)
}

function usageOf(value: unknown): Usage | undefined {
  if (!isRecord(value) || !isCount(value.inputTokens, 0) || !isCount(value.outputTokens, 0)) return undefined
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: value.inputTokens, outputTokens: value.outputTokens }
  if (isCount(value.cacheReadTokens, 0)) usage.cacheReadTokens = value.cacheReadTokens
  if (isCount(value.cacheWriteTokens, 0)) usage.cacheWriteTokens = value.cacheWriteTokens
  if (value.estimated === true) usage.estimated = true
  return usage
}

function isToolCall(value: unknown): boolean {
  return isRecord(value) && typeof value.id === 'string' && typeof value.name === 'string'
}

function isCount(value: unknown, min = 1): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min
}

const ROLES: readonly string[] = ['system', 'user', 'assistant', 'tool']

/** A recorded tail message as the request carried it, or `undefined` when it is not one. */
function messageOf(value: unknown): Message | undefined {
  if (!isRecord(value) || typeof value.role !== 'string' || !ROLES.includes(value.role) || typeof value.content !== 'string') return undefined
  const m: { -readonly [K in keyof Message]: Message[K] } = { role: value.role as Message['role'], content: value.content }
  if (Array.isArray(value.toolCalls) && value.toolCalls.every(isToolCall)) m.toolCalls = value.toolCalls as ToolCall[]
  if (typeof value.toolCallId === 'string') m.toolCallId = value.toolCallId
  if (value.isError === true) m.isError = true
  if (value.ephemeral === true) m.ephemeral = true
  return m
}

/** The tail as compared between a recording and a replay: each message's role and content. */
export function tailOf(tail: unknown): readonly (readonly [unknown, unknown])[] {
  return Array.isArray(tail) ? tail.map((m) => (isRecord(m) ? ([m.role, m.content] as const) : ([undefined, undefined] as const))) : []
}
