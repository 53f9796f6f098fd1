import { option, optionsContract } from '../model/options-contract.ts'
import { modelWindowsCheck, vendorOf, windowOf, withModels, type ModelWindows } from './model-windows.ts'
import type { RequestAdjustingRule } from './retry-truncated.ts'
import type { ReliabilityScope } from './scope.ts'

/** Options of {@link largerWindowRule}. */
export interface LargerWindowOptions {
  /** Model windows added to (or overriding) the built-in `MODEL_WINDOWS`. */
  readonly models?: ModelWindows
  /**
   * The models it may move to, in order of preference. @default every model of the table of the
   * same vendor as the attempt's, the smallest larger window first
   */
  readonly to?: readonly string[]
}

const LARGER_WINDOW = optionsContract<LargerWindowOptions>('largerWindowRule', {
  models: modelWindowsCheck('largerWindowRule'),
  to: option.where('an array of model names', (v) => Array.isArray(v) && v.every((m) => typeof m === 'string' && m !== '')),
})

/**
 * On `context-overflow`, retries on the same provider with a model of a larger context window: the
 * first of `to` (or of the table's models of the same vendor, smallest larger window first) whose
 * window is larger than the attempt's model's. The attempt's model must be in the table (built-in
 * `MODEL_WINDOWS` plus `models`); otherwise the rule does not match. It sets the request's
 * `model`, which the OpenAI and Anthropic adapters send; the AI SDK adapter's model is an object
 * and is not switched.
 *
 * @example
 * createGate({ providers: openai, model: 'gpt-4o', postDecide: [largerWindowRule({ to: ['gpt-4.1'] })] })
 */
export function largerWindowRule(options: LargerWindowOptions = {}): RequestAdjustingRule {
  const checked = LARGER_WINDOW.check(options)
  const table = withModels(checked.models, 'largerWindowRule')
  const to = checked.to
  const next = (model: string | undefined): string | undefined => largerModel(table, model, to)
  const sent = (scope: ReliabilityScope): string | undefined => (scope.attemptRequest ?? scope.request).model
  return {
    when: function largerWindowWhen(scope) {
      return scope.errorKind === 'context-overflow' && next(sent(scope)) !== undefined
    },
    then: 'retry',
    failuresOnly: true,
    kind: 'larger-window',
    label: 'retry a context overflow on a model with a larger context window',
    adjustRequest: function largerWindow(_scope, request) {
      const model = next(request.model)
      return model === undefined ? {} : { model }
    },
  }
}

/** The model to move to from `model` (see {@link largerWindowRule}), `undefined` when there is none. */
export function largerModel(table: ModelWindows, model: string | undefined, to: readonly string[] | undefined): string | undefined {
  const from = windowOf(table, model)
  if (from === undefined || model === undefined) return undefined
  const larger = (name: string): boolean => (windowOf(table, name)?.contextWindow ?? 0) > from.contextWindow
  if (to !== undefined) return to.find(larger)
  const vendor = vendorOf(model)
  const candidates = Object.keys(table).filter((name) => vendorOf(name) === vendor && larger(name))
  candidates.sort((a, b) => (table[a]?.contextWindow ?? 0) - (table[b]?.contextWindow ?? 0) || a.localeCompare(b))
  return candidates[0]
}
