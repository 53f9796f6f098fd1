import { option, optionsContract } from '../model/options-contract.ts'
import { positiveInteger } from './option-checks.ts'
import type { RequestAdjustingRule } from './retry-truncated.ts'
import type { ReliabilityScope } from './scope.ts'

/** Options of {@link lowerMaxTokensRule}. */
export interface LowerMaxTokensOptions {
  /** Factor applied to `maxTokens` on each retry. @default 0.5 */
  readonly factor?: number
  /** Smallest `maxTokens` ever asked for; at it the rule no longer matches. @default 256 */
  readonly minTokens?: number
  /** `maxTokens` assumed when the request sets none (the adapters' default). @default 4096 */
  readonly assumedMaxTokens?: number
}

const LOWER_MAX_TOKENS = optionsContract<LowerMaxTokensOptions>('lowerMaxTokensRule', {
  factor: option.where('a number above 0 and below 1', (v) => typeof v === 'number' && v > 0 && v < 1),
  minTokens: positiveInteger,
  assumedMaxTokens: positiveInteger,
})

/**
 * On `context-overflow`, retries with a lower `maxTokens` (the attempt's times `factor`, never below
 * `minTokens`): the window holds input plus the output reserved for the answer, so reserving less
 * can make a long input fit. It matches while the attempt asked for more than `minTokens`.
 *
 * @example
 * createGate({ providers, postDecide: [lowerMaxTokensRule({ minTokens: 1024 }), trimWindowRule()] })
 */
export function lowerMaxTokensRule(options: LowerMaxTokensOptions = {}): RequestAdjustingRule {
  const checked = LOWER_MAX_TOKENS.check(options)
  const factor = checked.factor ?? 0.5
  const min = checked.minTokens ?? 256
  const assumed = checked.assumedMaxTokens ?? 4096
  const asked = (max: number | undefined): number => max ?? assumed
  const current = (scope: ReliabilityScope): number => asked((scope.attemptRequest ?? scope.request).maxTokens)
  return {
    when: function lowerMaxTokensWhen(scope) {
      return scope.errorKind === 'context-overflow' && current(scope) > min
    },
    then: 'retry',
    failuresOnly: true,
    kind: 'max-tokens-lower',
    label: `retry a context overflow with maxTokens x${factor} (down to ${min})`,
    adjustRequest: function lowerMaxTokens(_scope, request) {
      const now = asked(request.maxTokens)
      return now > min ? { maxTokens: Math.max(min, Math.floor(now * factor)) } : {}
    },
  }
}
