import { ProviderError } from '../model/provider-error.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ToolCall } from '../model/tool-call.ts'
import { jsonTextOf } from '../model/json-text-of.ts'
import { findForbiddenKey } from '../validation/json/forbidden-keys.ts'

/**
 * The response of an attempt's chain, checked at the boundary: a provider or a link that answers
 * something other than a `ModelResponse` (`null`, a bare string, `toolCalls` missing or holding
 * `null`, an empty tool name, reasoning that is no list of blocks) fails the attempt with kind
 * `malformed-response` instead of crashing the gate later. A call without a string id is no malformed
 * response: the Agent gives it an id of its own (`withCallIds`).
 */
export function responseOf(result: unknown, provider: string): ModelResponse {
  let response: unknown
  try {
    response = typeof result === 'object' && result !== null ? (result as { response?: unknown }).response : undefined
  } catch {
    throw malformed(provider, 'its fields cannot be read')
  }
  return checkedResponse(response, provider)
}

/**
 * A provider's own answer, checked at the boundary like {@link responseOf}'s. Tool arguments that
 * hold a `__proto__` key, or a `constructor` key holding a `prototype` (a provider of the user's that
 * parsed the model's JSON itself), go on as their JSON text, as the shipped adapters hand them: no
 * listener, result or tool ever gets them as an object, and the agent's check refuses them with feedback.
 */
export function checkedResponse(response: unknown, provider: string): ModelResponse {
  const problem = responseShapeProblem(response)
  if (problem !== undefined) throw malformed(provider, problem)
  const checked = response as ModelResponse
  if (checked.toolCalls.length === 0) return checked
  try {
    return withSafeArgs(checked)
  } catch {
    throw malformed(provider, 'its tool calls cannot be read')
  }
}

/**
 * `response`, its calls' arguments holding a forbidden key written as JSON text (the same response
 * when none does). Throws when a call cannot be read. Every answer that may carry model JSON goes
 * through it: a provider's, and a fallback's (often another model's call).
 */
export function withSafeArgs(response: ModelResponse): ModelResponse {
  let calls: ToolCall[] | undefined
  const { toolCalls } = response
  for (let i = 0; i < toolCalls.length; i++) {
    const call = toolCalls[i] as ToolCall
    if (typeof call.args !== 'object' || call.args === null || findForbiddenKey(call.args) === undefined) continue
    calls ??= toolCalls.slice()
    calls[i] = { ...call, args: jsonTextOf(call.args) }
  }
  return calls === undefined ? response : { ...response, toolCalls: calls }
}

function malformed(provider: string, problem: string): ProviderError {
  return new ProviderError(`provider "${provider}" answered with a malformed response: ${problem}`, { kind: 'malformed-response', provider })
}

/**
 * What is wrong with the shape of a would-be `ModelResponse`, or `undefined` when nothing is. Never
 * throws: a value whose properties cannot be read (throwing getters, a hostile Proxy) is a problem.
 */
export function responseShapeProblem(r: unknown): string | undefined {
  try {
    return shapeProblem(r)
  } catch {
    return 'its fields cannot be read'
  }
}

function shapeProblem(r: unknown): string | undefined {
  if (typeof r !== 'object' || r === null) return r === undefined ? 'no response' : `expected a response object, got ${r === null ? 'null' : typeof r}`
  const { content, toolCalls } = r as { content?: unknown; toolCalls?: unknown }
  if (typeof content !== 'string') return `content must be a string, got ${content === null ? 'null' : typeof content}`
  if (!Array.isArray(toolCalls)) return `toolCalls must be an array, got ${toolCalls === null ? 'null' : typeof toolCalls}`
  for (let i = 0; i < toolCalls.length; i++) {
    const call: unknown = toolCalls[i]
    // An empty name names no tool: the call could never be answered, nor stored (a stored call has a name).
    if (typeof call !== 'object' || call === null || typeof (call as { name?: unknown }).name !== 'string' || (call as { name: string }).name === '')
      return `toolCalls[${i}] is not a tool call with a name`
  }
  const reasoning = (r as { reasoning?: unknown }).reasoning
  return reasoning === undefined ? undefined : reasoningProblem(reasoning)
}

/** What is wrong with an answer's reasoning blocks: `{ text, signature?, redactedData?, providerMetadata? }` each, as a stored turn keeps them. */
function reasoningProblem(reasoning: unknown): string | undefined {
  if (!Array.isArray(reasoning)) return `reasoning must be an array of reasoning blocks, got ${reasoning === null ? 'null' : typeof reasoning}`
  for (let i = 0; i < reasoning.length; i++) {
    const block: unknown = reasoning[i]
    if (typeof block !== 'object' || block === null) return `reasoning[${i}] is not a reasoning block { text }`
    const { text, signature, redactedData, providerMetadata } = block as Record<string, unknown>
    if (typeof text !== 'string') return `reasoning[${i}].text must be a string, got ${text === null ? 'null' : typeof text}`
    if ((signature !== undefined && typeof signature !== 'string') || (redactedData !== undefined && typeof redactedData !== 'string'))
      return `reasoning[${i}]: signature and redactedData must be strings`
    if (providerMetadata !== undefined && (typeof providerMetadata !== 'object' || providerMetadata === null || Array.isArray(providerMetadata)))
      return `reasoning[${i}].providerMetadata must be an object`
  }
  return undefined
}
