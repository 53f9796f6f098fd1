import { optionsContract } from '../model/options-contract.ts'
import { positiveInteger, positiveNumber } from './option-checks.ts'
import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import { adjustRequestFor as adjustBoth } from './adjust-request.ts'
import type { ReliabilityRule, RequestAdjustment } from './rule.ts'
import type { ReliabilityScope } from './scope.ts'

export type { RequestAdjustment }

/** A rule that always changes the next request (read by the gate after building the retry tail). */
export type RequestAdjustingRule = ReliabilityRule & Required<Pick<ReliabilityRule, 'adjustRequest'>>

/** Options of {@link retryTruncated}. */
export interface RetryTruncatedOptions {
  /** Factor applied to `maxTokens` on each retry. @default 2 */
  readonly growFactor?: number
  /** Largest `maxTokens` ever asked for; a cut answer at this limit is not retried. @default 32_768 */
  readonly maxTokensCap?: number
  /** `maxTokens` assumed when the request sets none and the usage does not tell. @default 4096 */
  readonly assumedMaxTokens?: number
}

/** The options `retryTruncated` takes, checked once. */
const RETRY_TRUNCATED = optionsContract<RetryTruncatedOptions>('retryTruncated', {
  growFactor: positiveNumber,
  maxTokensCap: positiveInteger,
  assumedMaxTokens: positiveInteger,
})

/**
 * Retries an answer cut by the token limit (error kind `truncated`, `stopReason: 'max_tokens'`)
 * with a larger `maxTokens`: the limit that cut it times `growFactor`, capped at `maxTokensCap`.
 * Once the cap was reached it no longer matches, so a later rule (such as {@link truncatedFailFast})
 * decides. Options are checked here: `growFactor` a finite number above 1, `maxTokensCap` and
 * `assumedMaxTokens` integers 1 or above; anything else throws a `RangeError`.
 *
 * @example
 * createGate({ providers, outputSchema, postDecide: [retryTruncated({ maxTokensCap: 16_384 }), truncatedFailFast] })
 */
export function retryTruncated(options: RetryTruncatedOptions = {}): RequestAdjustingRule {
  const checked = RETRY_TRUNCATED.check(options)
  const growFactor = checked.growFactor ?? 2
  const cap = checked.maxTokensCap ?? 32_768
  const assumed = checked.assumedMaxTokens ?? 4096
  if (!(growFactor > 1)) throw new RangeError(`retryTruncated: growFactor must be greater than 1, got ${growFactor}`)
  // The limit that cut the answer: what the attempt asked for (a retry's grown maxTokens), else its
  // output tokens when the provider reported them (an estimate from the text is not the limit), else
  // what the caller's request asked for. `when` and `adjustRequest` read the same limit: judged by
  // the output tokens alone, an attempt already at the cap whose count came back lower (an estimate,
  // a count without reasoning tokens) was sent again at the cap until the attempt cap.
  const cutAt = (scope: ReliabilityScope, request: ModelRequest | undefined): number => {
    const usage = scope.response?.usage
    const reported = usage === undefined || usage.estimated === true ? undefined : usage.outputTokens || undefined
    return request?.maxTokens ?? reported ?? scope.request.maxTokens ?? assumed
  }
  return {
    when: function retryTruncatedWhen(scope) {
      return scope.errorKind === 'truncated' && cutAt(scope, scope.attemptRequest) < cap
    },
    then: 'retry',
    failuresOnly: true,
    kind: 'truncated-retry',
    label: `retry a cut answer with maxTokens x${growFactor} (up to ${cap})`,
    adjustRequest: function growMaxTokens(scope, request) {
      return { maxTokens: Math.min(cap, Math.ceil(cutAt(scope, request) * growFactor)) }
    },
  }
}

/** Fails fast on an answer cut by the token limit, saying so (kind `truncated`). */
export const truncatedFailFast: ReliabilityRule = Object.freeze<ReliabilityRule>({
  when: function truncated(scope) {
    return scope.errorKind === 'truncated'
  },
  then: 'fail-fast',
  failuresOnly: true,
  kind: 'truncated',
  label: "the answer was cut by the token limit (stopReason 'max_tokens'): raise maxTokens or ask for a shorter answer",
})

const NO_TAIL: readonly Message[] = Object.freeze([])

/**
 * The request for the next attempt after `rule` decided a retry (without its tail): see
 * `adjustRequestFor` in `adjust-request.ts`, which also adjusts the tail.
 */
export function adjustRequestFor(rule: ReliabilityRule | undefined, scope: ReliabilityScope, request: ModelRequest): ModelRequest {
  return adjustBoth(rule, scope, { base: request, tail: NO_TAIL }).base
}
