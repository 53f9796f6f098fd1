import { shownValue, typeName } from '../model/describe-value.ts'

/**
 * Why a value cannot be the request of `gate.run` or `gate.stream`, as the message of the
 * `TypeError` they answer with; `undefined` when it can. Checks the shape and each optional field
 * that is present, never the messages one by one: a history may hold thousands.
 */
export function requestProblem(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return `request must be an object with a \`messages\` array, got ${typeName(request)}`
  }
  const r = request as Readonly<Record<string, unknown>>
  if (!Array.isArray(r.messages)) return `request.messages must be an array of messages, got ${typeName(r.messages)}`
  if (r.system !== undefined && typeof r.system !== 'string') return `request.system must be a string, got ${typeName(r.system)}`
  if (r.model !== undefined && typeof r.model !== 'string') return `request.model must be a string, got ${typeName(r.model)}`
  if (r.tools !== undefined && !Array.isArray(r.tools)) return `request.tools must be an array of tool specs, got ${typeName(r.tools)}`
  if (r.maxTokens !== undefined && !(Number.isInteger(r.maxTokens) && (r.maxTokens as number) > 0)) {
    return `request.maxTokens must be a positive integer, got ${shownValue(r.maxTokens)}`
  }
  if (r.responseSchema !== undefined && (typeof r.responseSchema !== 'object' || r.responseSchema === null || Array.isArray(r.responseSchema))) {
    return `request.responseSchema must be a JSON Schema object, got ${typeName(r.responseSchema)}`
  }
  if (r.signal !== undefined && !isAbortSignal(r.signal)) return `request.signal must be an AbortSignal, got ${typeName(r.signal)}`
  return undefined
}

/**
 * Why a value cannot be the options of a gate or agent run (`signal`, `runId`, `metadata`), or
 * `undefined` when it can.
 */
export function runOptionsProblem(options: unknown): string | undefined {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return `options must be an object, got ${typeName(options)}`
  const o = options as Readonly<Record<string, unknown>>
  if (o.signal !== undefined && !isAbortSignal(o.signal)) return `options.signal must be an AbortSignal, got ${typeName(o.signal)}`
  if (o.runId !== undefined && (typeof o.runId !== 'string' || o.runId === '')) return `options.runId must be a non-empty string, got ${shownValue(o.runId)}`
  if (o.metadata !== undefined && (typeof o.metadata !== 'object' || o.metadata === null || Array.isArray(o.metadata))) {
    return `options.metadata must be an object, got ${typeName(o.metadata)}`
  }
  return undefined
}

const STREAM_MODES: readonly unknown[] = ['passthrough', 'buffer', 'progressive']

/** {@link runOptionsProblem}, and a `mode` that is none of a stream's. */
export function streamOptionsProblem(options: unknown): string | undefined {
  const problem = runOptionsProblem(options)
  if (problem !== undefined || options === undefined) return problem
  const mode = (options as { readonly mode?: unknown }).mode
  if (mode !== undefined && !STREAM_MODES.includes(mode)) return `options.mode must be 'passthrough', 'buffer' or 'progressive', got ${shownValue(mode)}`
  return undefined
}

/** An `AbortSignal`, from this realm or another (a worker's, a test environment's): what the gate calls on one. */
function isAbortSignal(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const s = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown }
  return typeof s.aborted === 'boolean' && typeof s.addEventListener === 'function' && typeof s.removeEventListener === 'function'
}
