import { signalReason } from '../model/abort-reason.ts'
import { typeName } from '../model/describe-value.ts'
import { isRecord } from '../model/is-record.ts'
import { jsonTextOf } from '../model/json-text-of.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import type { Message } from '../model/message.ts'
import type { Provider, StreamingProvider } from '../model/provider.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import { raceAbort } from '../model/race-abort.ts'
import type { StreamChunk } from '../model/stream-chunk.ts'
import { assertRequest } from './adapter-kit/assert-request.ts'

/** A response where every field may be left out; missing fields get the defaults of {@link scripted}. */
export type ScriptedResponse = Partial<ModelResponse>

/** A function step: computes the reply from the request and the 0-based index of the call. */
export type ScriptedStepFunction = (request: ModelRequest, callIndex: number) => ScriptedStep | Promise<ScriptedStep>

/**
 * One scripted reply: a (partial) response, a string (the content of a plain final answer), an
 * `Error` (thrown by the call), or a function returning any of these (or throwing).
 */
export type ScriptedStep = ScriptedResponse | string | Error | ScriptedStepFunction

/** Options of {@link scripted}. */
export interface ScriptedOptions {
  /** @default 'scripted' */
  readonly name?: string
}

/** The options contract of {@link scripted}. */
const SCRIPTED = optionsContract<ScriptedOptions>('scripted', { name: option.nonEmptyString() })

/** A {@link Provider} that replies from a script and records what it was asked. */
export interface ScriptedProvider extends StreamingProvider {
  /** Snapshots of every request received, in order (later mutation of the originals does not show). */
  readonly requests: readonly ModelRequest[]
  /** How many calls were made (`complete` and `stream` alike), including failed ones. */
  readonly calls: number
}

/**
 * A provider that replies with `steps` in order, one per call, for tests and examples.
 *
 * A step is a string (a final answer: `{content, toolCalls: [], stopReason: 'end'}` with
 * approximate usage, characters / 4), a partial response (completed the same way; `stopReason`
 * defaults to `'tool_use'` when `toolCalls` is non-empty; `reasoning` kept), an `Error` (thrown by
 * that call) or a function `(request, callIndex) => step` (sync or async). Anything else is refused
 * with a `TypeError` naming the step: when `scripted` is called, or when a function returns it.
 * Running out of steps throws. An aborted `request.signal` rejects the call with the signal's reason.
 *
 * @example
 * const provider = scripted(['not json', '{"ok": true}'])
 * await provider.complete({ messages: [{ role: 'user', content: 'hi' }] }) // content 'not json'
 * provider.requests.length // 1
 */
export function scripted(steps: readonly ScriptedStep[], given?: ScriptedOptions): ScriptedProvider {
  if (!Array.isArray(steps)) throw new TypeError(`scripted: steps must be an array of answers, got ${typeName(steps)}`)
  steps.forEach((step, i) => {
    const problem = stepProblem(step)
    if (problem !== undefined) throw new TypeError(`scripted: step #${i + 1} ${problem}`)
  })
  const options = SCRIPTED.check(given)
  const name = options.name ?? 'scripted'
  const script = [...steps]
  const requests: ModelRequest[] = []

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    // Refused before it counts as a call: nothing was sent.
    assertRequest('scripted.complete', request)
    const callIndex = requests.length
    requests.push(snapshot(request))
    throwIfAborted(request.signal)
    const step = script[callIndex]
    if (step === undefined) {
      throw new Error(`scripted provider "${name}" has no step for call #${callIndex + 1} (${script.length} steps scripted)`)
    }
    // Raced with the signal: a function step that never settles still lets an aborted call reject.
    const response = await raceAbort(resolveStep(step, request, callIndex), request.signal, undefined, signalReason)
    // A function step may have awaited something while the caller gave up.
    throwIfAborted(request.signal)
    return response
  }

  function stream(request: ModelRequest): AsyncGenerator<StreamChunk> {
    assertRequest('scripted.stream', request)
    return streamOf(request)
  }

  async function* streamOf(request: ModelRequest): AsyncGenerator<StreamChunk> {
    const response = await complete(request)
    for (const text of splitInChunks(response.content, 3)) yield { type: 'text', text }
    yield { type: 'done', response }
  }

  return {
    name,
    complete,
    stream,
    get requests() {
      return requests
    },
    get calls() {
      return requests.length
    },
  }
}

/** Why `step` is no scripted step (a string, a response object, an `Error` or a function), or `undefined`. */
function stepProblem(step: unknown): string | undefined {
  if (typeof step === 'string' || typeof step === 'function' || step instanceof Error) return undefined
  if (typeof step !== 'object' || step === null || Array.isArray(step)) {
    return `must be a string, a response object, an Error or a function, got ${typeName(step)}`
  }
  const { content, toolCalls } = step as ScriptedResponse
  if (content !== undefined && typeof content !== 'string') return `content must be a string, got ${typeName(content)}`
  if (toolCalls !== undefined && !Array.isArray(toolCalls)) return `toolCalls must be an array, got ${typeName(toolCalls)}`
  return undefined
}

async function resolveStep(step: ScriptedStep, request: ModelRequest, callIndex: number): Promise<ModelResponse> {
  if (typeof step === 'function') {
    const next: unknown = await step(request, callIndex)
    // What a function step returns is checked like a listed step, at the call that asked for it.
    const problem = stepProblem(next)
    if (problem !== undefined) throw new TypeError(`scripted: step #${callIndex + 1} (a function) returned a value that ${problem}`)
    return resolveStep(next as ScriptedStep, request, callIndex)
  }
  if (step instanceof Error) throw step
  const partial: ScriptedResponse = typeof step === 'string' ? { content: step } : step
  const content = partial.content ?? ''
  const toolCalls = partial.toolCalls ?? []
  return {
    content,
    toolCalls,
    usage: partial.usage ?? {
      inputTokens: Math.ceil(requestChars(request) / 4),
      outputTokens: Math.max(1, Math.ceil((content.length + argsChars(toolCalls)) / 4)),
    },
    stopReason: partial.stopReason ?? (toolCalls.length > 0 ? 'tool_use' : 'end'),
    ...(partial.reasoning !== undefined ? { reasoning: partial.reasoning } : {}),
  }
}

/** A shallow copy with its own `messages` array, so the caller's later edits don't rewrite history. */
function snapshot(request: ModelRequest): ModelRequest {
  return { ...request, messages: request.messages.map((m: Message) => ({ ...m })) }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) {
    throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
  }
}

function requestChars(request: ModelRequest): number {
  return request.messages.reduce((sum, m) => sum + m.content.length, request.system?.length ?? 0)
}

// A step may script a hostile answer (a call that is `null`, arguments holding a BigInt or a cycle):
// the estimate never throws, so the gate sees the answer as it was scripted and judges it.
function argsChars(toolCalls: ModelResponse['toolCalls']): number {
  return toolCalls.reduce((sum, call: unknown) => sum + (isRecord(call) ? jsonTextOf(call.args).length : 0), 0)
}

function splitInChunks(text: string, count: number): string[] {
  if (text === '') return []
  const size = Math.ceil(text.length / count)
  const chunks: string[] = []
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size))
  return chunks
}
