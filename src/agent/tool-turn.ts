import type { Message } from '../model/message.ts'
import { raceAbort } from '../model/race-abort.ts'
import type { ModelResponse } from '../model/response.ts'
import { validateFinalAnswer, type CompiledSchema } from '../validation/index.ts'
import { runToolCall, type SettledToolCall, type ToolCallHost } from './tool-call-run.ts'
import { RunPause, type RunResume } from './approval/run-pause.ts'
import type { ToolCall } from '../model/tool-call.ts'
import { turnCallKeys } from './turn-call-keys.ts'

/** One model turn whose tool calls are settled: its answer, the conversation it answered, and how the run stops or goes on. */
export interface ToolTurn {
  readonly response: ModelResponse
  readonly messages: readonly Message[]
  /** The error an aborted run stops with. */
  readonly aborted: () => Error
  /** The run's resume from a pause, when it is one. */
  readonly resume?: RunResume | undefined
}

/**
 * Settles a turn's tool calls one by one, argument retries included. An aborted run stops here
 * with `aborted()`'s error, whatever its tools do with the signal. A resumed run (`resume`, on its paused turn) keeps
 * the calls settled before its pause, and settles the paused one again on the arguments it paused
 * on (validated and guarded again: an edited call needs its own approval); a call that pauses the
 * run takes the turn's settled calls with it.
 */
export async function settleToolCalls(host: ToolCallHost, turn: ToolTurn): Promise<SettledToolCall[]> {
  const { response, messages, aborted, resume } = turn
  const resumed = resume?.state.response === response ? resume : undefined
  const settled: SettledToolCall[] = resumed === undefined ? [] : [...resumed.state.settled]
  const keys = turnCallKeys(response.toolCalls)
  // The paused call is the one after those settled before the pause: no later call, whatever its id, takes its arguments or its decision.
  const pausedAt = resumed === undefined ? -1 : settled.length
  for (let i = settled.length; i < response.toolCalls.length; i++) {
    const call = response.toolCalls[i] as ToolCall
    const key = keys[i] as string
    const paused = i === pausedAt && resumed !== undefined && key === resumed.call.id && call.name === resumed.call.name
    const at = paused ? { ...call, args: resumed.call.args } : call
    try {
      settled.push(await runToolCall(paused ? { ...host, approval: resumed.approval } : host, { call: at, base: messages, reasoning: response.reasoning, key }))
    } catch (error) {
      if (error instanceof RunPause) error.settled = settled
      if (host.signal?.aborted !== true) throw error
    }
    if (host.signal?.aborted === true) throw aborted()
  }
  return settled
}

/**
 * The persisted messages of a tool turn: the assistant turn with each call's final arguments, then
 * each call's result. The turn keeps the reasoning of the answer it came from (never a retry's):
 * extended thinking needs it back, unchanged, before the tool results.
 */
export function toolTurnMessages(response: ModelResponse, settled: readonly SettledToolCall[]): Message[] {
  const reasoning = response.reasoning
  const turn: Message = {
    role: 'assistant',
    content: response.content,
    toolCalls: settled.map((s) => s.call),
    ...(reasoning !== undefined ? { reasoning } : {}),
  }
  return [turn, ...settled.map((s) => s.result)]
}

/** The prose reply of the turn's first call that ended `llm_gave_up` on it: the answer that stands. */
export function standingAnswer(settled: readonly SettledToolCall[]): ModelResponse | undefined {
  return settled.find((s) => s.answer !== undefined)?.answer
}

/** The standing answer did not pass the output schema: the run goes on to a final answer of its own. */
export const NOT_AN_ANSWER = Symbol('not an answer')

/**
 * The value of a prose answer that stands (the seed's `llm_gave_up`), checked like any final
 * answer: its text without an output schema; else the schema's value, or {@link NOT_AN_ANSWER} when
 * it does not pass (cut at the token limit included), or when the schema throws. An async schema
 * never holds the run past its signal.
 */
export async function standingValue<T>(
  answer: ModelResponse,
  schema: CompiledSchema<T> | undefined,
  signal: AbortSignal | undefined,
): Promise<T | typeof NOT_AN_ANSWER> {
  try {
    const verdict = await raceAbort(Promise.resolve(validateFinalAnswer(answer.content, schema, { truncated: answer.stopReason === 'max_tokens' })), signal)
    // Without a schema the value is the text, as a final answer's is (T is string then).
    return verdict.ok ? (verdict.value as T) : NOT_AN_ANSWER
  } catch {
    // A schema that throws, or a run aborted while it checked: the answer does not stand, and the
    // run's next gate call ends it the typed way (an aborted run as `aborted`).
    return NOT_AN_ANSWER
  }
}

/** Why a run stops at its last allowed turn when the model still called tools: their results could never be read. */
export function lastTurnCalled(response: ModelResponse, turns: number, maxIterations: number): string {
  const names = [...new Set(response.toolCalls.map((c) => c.name))].join(', ')
  return `no final answer after ${turns} model turns (maxIterations = ${maxIterations}); the last turn still called: ${names}`
}
