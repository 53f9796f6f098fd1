import { assertString } from '../../model/argument-checks.ts'
import { scanFolded } from './scan-folded.ts'
import { matchesOf, type PatternMatch, type PatternRule, withoutOverlaps } from './pattern-match.ts'

const secret = (rule: string, pattern: RegExp): PatternRule => ({ kind: 'api-key', rule, pattern })

/** Credential shapes, each a named rule: prefixes the issuers document, so a random word never matches. */
const SECRET_RULES: readonly PatternRule[] = [
  secret('anthropic-key', /(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,200}/g),
  secret('openai-key', /(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}/g),
  secret('stripe-key', /(?<![\w-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,100}/g),
  secret('aws-access-key', /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g),
  secret('github-token', /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g),
  secret('slack-token', /(?<![\w-])xox[abprs]-[A-Za-z0-9-]{10,200}/g),
  secret('google-api-key', /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g),
  secret('jwt', /(?<![\w-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{8,2000}/g),
  secret('bearer-token', /(?<=\bBearer )[A-Za-z0-9._~+/-]{20,500}=*/g),
]
const PRIVATE_KEY: PatternRule = { kind: 'private-key', rule: 'pem-private-key', pattern: /-----BEGIN (?:[A-Z]{1,20} ){0,3}PRIVATE KEY-----/g }

/**
 * API keys, tokens and private keys in a text, by the shapes their issuers document (OpenAI
 * `sk-`/`sk-proj-`, Anthropic `sk-ant-`, Stripe, AWS `AKIA`, GitHub, Slack, Google `AIza`, JWTs,
 * `Bearer` tokens, PEM private-key headers), read through `scanFolded` (also with fullwidth
 * forms as plain ones and zero-width characters left out); offsets are the text's own. Pure and linear in the text.
 *
 * @example
 * findSecrets('key: sk-proj-abcdefghijklmnopqrstuvwx') // [{ kind: 'api-key', rule: 'openai-key', ... }]
 */
export function findSecrets(text: string): PatternMatch[] {
  assertString(text, 'findSecrets: text')
  return scanFolded(text, (scanned) => {
    const found: PatternMatch[] = []
    for (const rule of SECRET_RULES) found.push(...matchesOf(scanned, rule))
    found.push(...matchesOf(scanned, PRIVATE_KEY))
    return withoutOverlaps(found)
  })
}
