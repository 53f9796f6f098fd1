import type { ModelResponse, Provider } from '../../src/index.ts'
import type { Step } from '../scenarios.ts'

/** A scripted answer sequence with a cursor; each benchmarked call starts from the first step. */
export interface Script<T> {
  /** The next pre-built answer (cycling), or a thrown pre-built error. */
  next(): T
  /** Back to the first step; called at the start of every benchmarked call. */
  reset(): void
  /** How many steps were consumed since the last reset (used by the sanity checks). */
  readonly used: number
}

/**
 * A cursor over pre-built answers. Building every answer once, up front, keeps the provider's own
 * cost out of the measurement: a step is an array read.
 */
export function script<T>(steps: readonly Step[], build: (step: Step) => T): Script<T> {
  const built = steps.map((step) => (step.kind === 'error' ? step.error : build(step)))
  let i = 0
  return {
    next() {
      const answer = built[i % built.length]
      i++
      if (answer instanceof Error) throw answer
      return answer as T
    },
    reset() {
      i = 0
    },
    get used() {
      return i
    },
  }
}

/** Our model-neutral response for a step. */
export function toModelResponse(step: Step): ModelResponse {
  const usage = { inputTokens: 20, outputTokens: 20 }
  if (step.kind === 'tool') {
    return { content: '', toolCalls: [{ id: 'call_1', name: step.name, args: JSON.parse(step.args) as unknown }], usage, stopReason: 'tool_use' }
  }
  return { content: step.kind === 'text' ? step.text : '', toolCalls: [], usage, stopReason: 'end' }
}

/**
 * The zero-overhead provider the gate, the Agent and the floor all use: no request recording,
 * no copying, a pre-built response per call.
 */
export function scriptProvider(name: string, answers: Script<ModelResponse>): Provider {
  return {
    name,
    complete: async () => answers.next(),
  }
}
