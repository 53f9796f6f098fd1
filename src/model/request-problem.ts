import { shownValue, typeName } from './describe-value.ts'
import { isRecord } from './is-record.ts'
import { unknownOption } from './known-options.ts'
import type { Message } from './message.ts'
import { OUTPUT_MODES, type OutputMode } from './output-mode.ts'
import type { ModelRequest } from './request.ts'
import { isAbortSignal } from './is-abort-signal.ts'

/** Every key of a request, keyed by every key of `ModelRequest`: a key the type gains without a row here does not compile. */
const REQUEST_KEYS_TABLE: { readonly [K in keyof Required<ModelRequest>]: true } = {
  system: true,
  messages: true,
  tools: true,
  toolChoice: true,
  model: true,
  maxTokens: true,
  responseSchema: true,
  outputMode: true,
  nativeSchema: true,
  signal: true,
}

/** The keys a request may hold: anything else (`toolchoice`, `temperature`) would be silently dropped on the way to the provider. */
export const REQUEST_KEYS: readonly string[] = Object.freeze(Object.keys(REQUEST_KEYS_TABLE))

/**
 * Why a request a middleware link passes to `next(changed)` cannot be sent ({@link checkRequest}'s
 * answer), or `undefined`: a link's request is checked as the caller's is, so one no provider could
 * be sent never reaches one. A getter that throws is a problem too, never an escape.
 */
export function sendProblem(request: unknown): string | undefined {
  try {
    const checked = checkRequest(request)
    return typeof checked === 'string' ? checked : undefined
  } catch (error) {
    return `reading it threw (${error instanceof Error ? error.message : typeof error})`
  }
}

/**
 * Why a value cannot be the request of `gate.run` or `gate.stream` (or of the request builders
 * `toOpenAIRequest` and `toAnthropicRequest`), as the message of the `TypeError` they answer with, or, when it can, the `messages` array checked. Checks the keys (a
 * misspelt one, `toolchoice`, is refused with "did you mean"), the shape,
 * each optional field that is present, and each message's role and content (one type test each, so
 * a history of thousands costs microseconds): a message no provider could be sent never reaches
 * one, and the run that follows sends that very array, never one read again (a getter or a proxy
 * may answer another one on the next read).
 */
export function checkRequest(request: unknown): string | readonly Message[] {
  if (!isRecord(request)) return `request must be an object with a \`messages\` array, got ${typeName(request)}`
  const unknown = unknownKeyProblem(request)
  if (unknown !== undefined) return unknown
  const { messages, system, model, tools, toolChoice, maxTokens, responseSchema, outputMode, nativeSchema, signal } = request
  if (!Array.isArray(messages)) return `request.messages must be an array of messages, got ${typeName(messages)}`
  // The length read once: a history behind a proxy or a getter is read the same fixed number of times, whatever its size.
  const length = messages.length
  for (let i = 0; i < length; i++) {
    const problem = messageProblem(messages[i])
    if (problem !== undefined) return `request.messages[${i}]${problem}`
  }
  if (system !== undefined && typeof system !== 'string') return `request.system must be a string, got ${typeName(system)}`
  if (model !== undefined && typeof model !== 'string') return `request.model must be a string, got ${typeName(model)}`
  // An empty model would be sent to the provider as the model's name.
  if (model === '') return 'request.model must be a non-empty string, got ""'
  if (tools !== undefined && !Array.isArray(tools)) return `request.tools must be an array of tool specs, got ${typeName(tools)}`
  if (tools !== undefined) {
    for (let i = 0; i < tools.length; i++) {
      const problem = toolSpecProblem(tools[i])
      if (problem !== undefined) return `request.tools[${i}]${problem}`
    }
  }
  if (toolChoice !== undefined) {
    const problem = toolChoiceProblem(toolChoice, tools as readonly unknown[] | undefined)
    if (problem !== undefined) return problem
  }
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && (maxTokens as number) > 0)) {
    return `request.maxTokens must be a positive integer, got ${shownValue(maxTokens)}`
  }
  if (responseSchema !== undefined && !isRecord(responseSchema)) return `request.responseSchema must be a JSON Schema object, got ${typeName(responseSchema)}`
  if (outputMode !== undefined && !OUTPUT_MODES.includes(outputMode as OutputMode))
    return `request.outputMode must be 'auto', 'native', 'json' or 'prompt', got ${shownValue(outputMode)}`
  if (nativeSchema !== undefined && !isRecord(nativeSchema)) return `request.nativeSchema must be a JSON Schema object, got ${typeName(nativeSchema)}`
  if (signal !== undefined && !isAbortSignal(signal)) return `request.signal must be an AbortSignal, got ${typeName(signal)}`
  return messages as readonly Message[]
}

/**
 * Why a request holds a key no request has (with "did you mean" when one is near), or `undefined`.
 * A `for...in` over the keys, the known ones passed by a `switch`: no array is made for a request
 * that is fine (every `gate.run` pays about 2 ns for this check, where `Object.keys` cost about
 * 80 ns). Any other own key is judged by {@link REQUEST_KEYS}, so a key the switch lacks is only slower.
 */
function unknownKeyProblem(request: Readonly<Record<string, unknown>>): string | undefined {
  for (const key in request) {
    switch (key) {
      case 'messages':
      case 'system':
      case 'model':
      case 'tools':
      case 'toolChoice':
      case 'maxTokens':
      case 'responseSchema':
      case 'outputMode':
      case 'nativeSchema':
      case 'signal':
        continue
    }
    if (!Object.hasOwn(request, key)) continue
    const problem = unknownOption(request, REQUEST_KEYS)
    return problem === undefined ? undefined : `request: ${problem.replace('unknown option', 'unknown key').replace('the options are', 'a request holds')}`
  }
  return undefined
}

const TOOL_CHOICES: readonly unknown[] = ['auto', 'none', 'required']

/**
 * Why a `toolChoice` cannot be sent: neither `'auto'`, `'none'`, `'required'` nor `{ tool: name }`,
 * or a tool required (`'required'`, a named tool) that is not among the request's `tools` (no provider could call it).
 */
function toolChoiceProblem(toolChoice: unknown, tools: readonly unknown[] | undefined): string | undefined {
  if (toolChoice === 'required' && !(tools !== undefined && tools.length > 0)) return `request.toolChoice 'required' needs at least one tool in request.tools`
  if (TOOL_CHOICES.includes(toolChoice)) return undefined
  if (!isRecord(toolChoice)) {
    return `request.toolChoice must be 'auto', 'none', 'required' or { tool: name }, got ${shownValue(toolChoice)}`
  }
  const name = toolChoice.tool
  if (typeof name !== 'string' || name === '') return `request.toolChoice.tool must be a non-empty tool name, got ${shownValue(name)}`
  const offered = tools?.some((t) => isRecord(t) && t.name === name) === true
  if (!offered) return `request.toolChoice names tool ${shownValue(name)}, which is not one of request.tools`
  return undefined
}

/**
 * What is wrong with one message, after its place (`.role must be ...`); `undefined` when nothing
 * is. Content is a string for every role: an assistant turn that only calls tools has `''`.
 */
function messageProblem(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return ` must be a message object, got ${typeName(message)}`
  const { role, content, toolCalls, toolCallId, reasoning } = message as Readonly<Record<string, unknown>>
  // Compared in order of frequency: a long history is mostly user and assistant turns.
  if (role !== 'user' && role !== 'assistant' && role !== 'tool' && role !== 'system')
    return `.role must be 'system', 'user', 'assistant' or 'tool', got ${shownValue(role)}`
  if (typeof content !== 'string') return `.content must be a string ('' when there is none), got ${typeName(content)}`
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) return `.toolCalls must be an array of tool calls, got ${typeName(toolCalls)}`
    // Every adapter reads each call's id and name to write it on the wire (and echo its result).
    for (let j = 0; j < toolCalls.length; j++) {
      const call: unknown = toolCalls[j]
      if (!isRecord(call)) return `.toolCalls[${j}] must be a tool call { id, name, args }, got ${typeName(call)}`
      if (typeof call.id !== 'string') return `.toolCalls[${j}].id must be a string, got ${typeName(call.id)}`
      if (typeof call.name !== 'string') return `.toolCalls[${j}].name must be a string, got ${typeName(call.name)}`
    }
  }
  if (toolCallId !== undefined && typeof toolCallId !== 'string') return `.toolCallId must be a string, got ${typeName(toolCallId)}`
  if (reasoning !== undefined) {
    if (!Array.isArray(reasoning)) return `.reasoning must be an array of reasoning blocks, got ${typeName(reasoning)}`
    for (const block of reasoning) if (!isRecord(block)) return `.reasoning must hold reasoning blocks ({ text }), got ${typeName(block)}`
  }
  return undefined
}

/** What is wrong with one tool spec, after its place; `undefined` when nothing is (an adapter writes its name, description and schema on the wire). */
function toolSpecProblem(spec: unknown): string | undefined {
  if (!isRecord(spec)) return ` must be a tool spec { name, description, inputSchema }, got ${typeName(spec)}`
  if (typeof spec.name !== 'string' || spec.name === '') return `.name must be a non-empty string, got ${shownValue(spec.name)}`
  if (spec.description !== undefined && typeof spec.description !== 'string') return `.description must be a string, got ${typeName(spec.description)}`
  if (spec.inputSchema !== undefined && !isRecord(spec.inputSchema)) return `.inputSchema must be a JSON Schema object, got ${typeName(spec.inputSchema)}`
  return undefined
}
