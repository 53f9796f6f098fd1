import { contextWindowCheck, dropRetryEchoRule, largerWindowRule, lowerMaxTokensRule, trimWindowRule } from '../../../src/index.ts'
import type { OptionsEntry } from './entry.ts'

/** The remedies of requests the provider refuses, and the pre-flight window check. */
export const entries: readonly OptionsEntry[] = [
  { name: 'trimWindowRule', covers: ['.:trimWindowRule'], keys: ['dropFraction'], numbers: ['dropFraction'], call: (o) => trimWindowRule(o) },
  { name: 'dropRetryEchoRule', covers: ['.:dropRetryEchoRule'], keys: ['keepChars'], numbers: ['keepChars'], call: (o) => dropRetryEchoRule(o) },
  {
    name: 'lowerMaxTokensRule',
    covers: ['.:lowerMaxTokensRule'],
    keys: ['factor', 'minTokens', 'assumedMaxTokens'],
    numbers: ['factor', 'minTokens', 'assumedMaxTokens'],
    call: (o) => lowerMaxTokensRule(o),
  },
  { name: 'largerWindowRule', covers: ['.:largerWindowRule'], keys: ['models', 'to'], call: (o) => largerWindowRule(o) },
  { name: 'contextWindowCheck', covers: ['.:contextWindowCheck'], keys: ['models', 'estimateTokens'], call: (o) => contextWindowCheck(o) },
]
