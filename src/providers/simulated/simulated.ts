/**
 * The simulated provider: a deterministic SIMULATOR of a model that answers in JSON and makes the
 * mistakes real models make. It is NOT a language model: it does not understand the prompt beyond
 * a few hints, it builds answers from the response schema, and it "reads" feedback only as the
 * gate's `- '<path>': <text>` lines. It exists so that demos and tests run offline and replay exactly.
 */
import { shownValue } from '../../model/describe-value.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import type { Message } from '../../model/message.ts'
import type { Provider, StreamingProvider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import type { ToolCall, ToolSpec } from '../../model/tool-call.ts'
import { signalReason } from '../../model/abort-reason.ts'
import { sleep } from '../../policies/deadline/sleep.ts'
import { assertRequest } from '../adapter-kit/assert-request.ts'
import { SIMULATED_FAULTS, type SimulatedFault } from './faults.ts'
import { fixIssues } from './fix-issues.ts'
import { generateValue } from './generate-value.ts'
import { hashString, mixSeed } from './prng.ts'
import { readPromptHints } from './prompt-hints.ts'
import { countToolCalls, hasToolResultSinceLastUser, lastUserMessage, readConversation, type Conversation } from './read-conversation.ts'
import { readFeedback } from './read-feedback.ts'
import { type AnswerSettings, structuredAnswer } from './structured-answer.ts'

/** Options of {@link simulated}. */
export interface SimulatedOptions {
  /** Seed of every choice the simulator makes. @default 0 */
  readonly seed?: number
  /**
   * Mistakes of first attempts: `'random'` picks one or two that fit the schema (from the seed, the
   * system prompt and the user messages); `[]` always answers validly; a list applies those faults.
   * @default 'random'
   */
  readonly faults?: readonly SimulatedFault[] | 'random'
  /** Repeat the previous answer verbatim whatever the feedback says (a model stuck on its mistake). @default false */
  readonly ignoreFeedback?: boolean
  /** @default 'simulated' */
  readonly name?: string
  /** Simulated latency of every call, abortable through `request.signal`. @default 0 */
  readonly latencyMs?: number
}

/** The options contract of {@link simulated}: faults are checked by name beside it. */
const SIMULATED = optionsContract<SimulatedOptions>('simulated', {
  seed: option.where('a finite number', (v) => typeof v === 'number' && Number.isFinite(v)),
  faults: option.any(),
  ignoreFeedback: option.boolean(),
  name: option.nonEmptyString(),
  latencyMs: option.duration(0),
})

/** The simulated provider: a {@link Provider} that always streams. */
export type SimulatedProvider = StreamingProvider

const STREAM_CHUNK_CHARS = 16
const VALUE_STREAM = 1
const FAULT_STREAM = 2
const TOOL_STREAM = 3

/**
 * A SIMULATED model for demos and tests (not a language model): deterministic for a given seed and request.
 *
 * - without `responseSchema`: `Simulated answer to: <the question>`;
 * - with a schema: a value valid for it, damaged on first attempts by `faults`, and on retries
 *   (the gate's ephemeral tail `assistant(previous), user(feedback)`) fixed exactly at the paths the
 *   feedback names;
 * - with `tools`: first one call to the first tool with valid arguments, then an answer.
 *
 * @example
 * const provider = simulated({ seed: 7, faults: ['number-as-string'] })
 * const response = await provider.complete({ messages: [{ role: 'user', content: 'refund #42 for $50' }], responseSchema })
 */
export function simulated(given?: SimulatedOptions): SimulatedProvider {
  const options = SIMULATED.check(given)
  checkFaults(options.faults)
  const name = options.name ?? 'simulated'
  const seed = options.seed ?? 0
  const faults = options.faults ?? 'random'
  const ignoreFeedback = options.ignoreFeedback ?? false
  const latencyMs = options.latencyMs ?? 0

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    assertRequest('simulated.complete', request)
    await sleep(latencyMs, request.signal, signalReason)
    const conversation = readConversation(request.messages)
    const question = lastUserMessage(conversation.base)
    const promptSeed = mixSeed(seed, hashString(promptKey(request.system, conversation.base)))
    const settings: AnswerSettings = {
      valueSeed: mixSeed(promptSeed, VALUE_STREAM),
      faultSeed: mixSeed(promptSeed, FAULT_STREAM),
      faults,
      ignoreFeedback,
      hints: readPromptHints(question),
    }
    const toolCall = chooseToolCall(request, conversation, promptSeed, settings)
    if (toolCall !== undefined) return respond(request, '', [toolCall], 'tool_use')
    if (request.responseSchema === undefined) {
      return respond(request, question === '' ? 'Simulated answer.' : `Simulated answer to: ${question.slice(0, 80)}`, [], 'end')
    }
    const { text, stopReason } = structuredAnswer(request.responseSchema, conversation, settings)
    return respond(request, text, [], stopReason)
  }

  function stream(request: ModelRequest): AsyncGenerator<StreamChunk> {
    assertRequest('simulated.stream', request)
    return streamOf(request)
  }

  async function* streamOf(request: ModelRequest): AsyncGenerator<StreamChunk> {
    const response = await complete(request)
    for (let i = 0; i < response.content.length; i += STREAM_CHUNK_CHARS) {
      yield { type: 'text', text: response.content.slice(i, i + STREAM_CHUNK_CHARS) }
    }
    yield { type: 'done', response }
  }

  return { name, complete, stream }
}

/**
 * A tool call when the model should call a tool: a retry of a failing call (fixed like an answer),
 * or the first tool while no tool has answered since the user spoke.
 */
function chooseToolCall(request: ModelRequest, conversation: Conversation, promptSeed: number, settings: AnswerSettings): ToolCall | undefined {
  const { hints, ignoreFeedback } = settings
  const tools = request.tools ?? []
  const first = tools[0]
  if (first === undefined) return undefined
  const id = `call_${countToolCalls(request.messages) + 1}`
  const validArgs = (tool: ToolSpec): { seed: number; valid: unknown } => {
    const argsSeed = mixSeed(promptSeed, TOOL_STREAM, hashString(tool.name))
    return { seed: argsSeed, valid: generateValue(tool.inputSchema, argsSeed, { hints }) }
  }
  const retry = conversation.toolRetry
  if (retry !== undefined) {
    const tool = tools.find((t) => t.name === retry.call.name) ?? first
    if (ignoreFeedback) return { id, name: tool.name, args: retry.call.args }
    const { seed, valid } = validArgs(tool)
    return { id, name: tool.name, args: fixIssues(retry.call.args, readFeedback(retry.feedback).issues, { schema: tool.inputSchema, valid, seed, hints }) }
  }
  if (hasToolResultSinceLastUser(conversation.base)) return undefined
  return { id, name: first.name, args: validArgs(first).valid }
}

/** What the answer depends on: the system prompt and what the user said (never the retry tail). */
function promptKey(system: string | undefined, base: readonly Message[]): string {
  return [system ?? '', ...base.filter((m) => m.role === 'user').map((m) => m.content)].join('\u0000')
}

function respond(request: ModelRequest, content: string, toolCalls: readonly ToolCall[], stopReason: ModelResponse['stopReason']): ModelResponse {
  const inputChars = request.messages.reduce((sum, m) => sum + m.content.length, request.system?.length ?? 0)
  const outputChars = content.length + toolCalls.reduce((sum, c) => sum + (JSON.stringify(c.args) ?? '').length, 0)
  return {
    content,
    toolCalls,
    usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.max(1, Math.ceil(outputChars / 4)) },
    stopReason,
  }
}

/** `faults`: `'random'` or a list of {@link SIMULATED_FAULTS} (a misspelt one would never be made). */
function checkFaults(faults: unknown): void {
  if (faults === undefined || faults === 'random') return
  if (!Array.isArray(faults)) throw new TypeError(`simulated: faults must be 'random' or an array of faults, got ${shownValue(faults)}`)
  for (const fault of faults) {
    if (!(SIMULATED_FAULTS as readonly unknown[]).includes(fault)) {
      throw new TypeError(`simulated: ${JSON.stringify(fault) ?? String(fault)} is not a fault; the faults are ${SIMULATED_FAULTS.join(', ')}`)
    }
  }
}
