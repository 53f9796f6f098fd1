import type { Message } from '../model/message.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import type { ModelRequest } from '../model/request.ts'
import { modelWindowsCheck, windowOf, withModels, type ModelWindows } from './model-windows.ts'
import type { ReliabilityRule } from './rule.ts'

/** Options of {@link contextWindowCheck}. */
export interface ContextWindowCheckOptions {
  /** Model windows added to (or overriding) the built-in `MODEL_WINDOWS`. */
  readonly models?: ModelWindows
  /**
   * Input tokens of a request (its retry tail included), e.g. with the model's own tokenizer. A
   * throw refuses nothing and is reported as `rule_error`; an answer that is no finite number (a
   * promise included: the check is synchronous) refuses nothing. @default characters / 4
   */
  readonly estimateTokens?: (request: ModelRequest) => number
}

const CONTEXT_WINDOW_CHECK = optionsContract<ContextWindowCheckOptions>('contextWindowCheck', {
  models: modelWindowsCheck('contextWindowCheck'),
  estimateTokens: option.function(),
})

// About four characters a token on English text; JSON and code make more tokens per character, so
// the default estimate errs low: a refusal is one the provider would have made.
const CHARS_PER_TOKEN = 4

/**
 * A PreCheck rule: refuses an attempt whose estimated input plus `maxTokens` cannot fit its model's
 * context window, before the provider is called (fail-fast kind `context-overflow`, nothing spent).
 * Opt-in (add it to `preCheck`), and it only judges a model of the table (the built-in
 * `MODEL_WINDOWS` plus `models`): a model the table does not know is always let through. The
 * estimate is the `estimateTokens` option, else about four characters a token (an estimate that
 * errs low, so it refuses only what cannot fit).
 *
 * @example
 * createGate({ providers, model: 'gpt-4o', preCheck: [contextWindowCheck({ models: { 'my-model': { contextWindow: 32_768 } } })] })
 */
export function contextWindowCheck(options: ContextWindowCheckOptions = {}): ReliabilityRule {
  const checked = CONTEXT_WINDOW_CHECK.check(options)
  const table = withModels(checked.models, 'contextWindowCheck')
  const estimate = checked.estimateTokens ?? estimateByChars
  return {
    when: function contextWindowTooSmall(scope) {
      const base = scope.attemptRequest ?? scope.request
      const window = windowOf(table, base.model)
      if (window === undefined) return false
      const tail = scope.attemptTail ?? []
      const sent = tail.length === 0 ? base : { ...base, messages: base.messages.concat(tail) }
      // A tokenizer that throws is the gate's to report (`rule_error`, the rule not matching): it
      // refuses nothing, and the user hears of it. An answer that is no finite number refuses nothing.
      const input: unknown = estimate(sent)
      if (typeof input !== 'number' || !Number.isFinite(input)) return false
      const output = typeof base.maxTokens === 'number' && Number.isFinite(base.maxTokens) && base.maxTokens > 0 ? base.maxTokens : 0
      return input + output > window.contextWindow
    },
    then: 'fail-fast',
    kind: 'context-overflow',
    label: "context window check: the estimated input plus maxTokens exceed the model's context window; nothing was sent",
  }
}

/** Tokens of a request at about four characters a token: its system prompt, messages, tool calls, tools and schema. */
export function estimateByChars(request: ModelRequest): number {
  let chars = typeof request.system === 'string' ? request.system.length : 0
  for (const m of request.messages as readonly Message[]) {
    chars += typeof m.content === 'string' ? m.content.length : 0
    if (m.toolCalls !== undefined) chars += jsonLength(m.toolCalls)
  }
  if (request.tools !== undefined) chars += jsonLength(request.tools)
  if (request.responseSchema !== undefined) chars += jsonLength(request.responseSchema)
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0
  } catch {
    return 0
  }
}
