import { matchesOf, type PatternMatch, withoutOverlaps } from './pattern-match.ts'

/** Credential shapes, each a named rule: prefixes the issuers document, so a random word never matches. */
const SECRET_RULES: readonly { readonly rule: string; readonly pattern: RegExp }[] = [
  { rule: 'anthropic-key', pattern: /(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,200}/g },
  { rule: 'openai-key', pattern: /(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}/g },
  { rule: 'stripe-key', pattern: /(?<![\w-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,100}/g },
  { rule: 'aws-access-key', pattern: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  { rule: 'github-token', pattern: /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g },
  { rule: 'slack-token', pattern: /(?<![\w-])xox[abprs]-[A-Za-z0-9-]{10,200}/g },
  { rule: 'google-api-key', pattern: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
  { rule: 'jwt', pattern: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{8,2000}/g },
  { rule: 'bearer-token', pattern: /(?<=\bBearer )[A-Za-z0-9._~+/-]{20,500}=*/g },
]
const PRIVATE_KEY = /-----BEGIN (?:[A-Z]{1,20} ){0,3}PRIVATE KEY-----/g

/**
 * API keys, tokens and private keys in a text, by the shapes their issuers document (OpenAI
 * `sk-`/`sk-proj-`, Anthropic `sk-ant-`, Stripe, AWS `AKIA`, GitHub, Slack, Google `AIza`, JWTs,
 * `Bearer` tokens, PEM private-key headers). Pure and linear in the text.
 *
 * @example
 * findSecrets('key: sk-proj-abcdefghijklmnopqrstuvwx') // [{ kind: 'api-key', rule: 'openai-key', ... }]
 */
export function findSecrets(text: string): PatternMatch[] {
  const found: PatternMatch[] = []
  for (const { rule, pattern } of SECRET_RULES) found.push(...matchesOf(text, pattern, 'api-key', rule))
  found.push(...matchesOf(text, PRIVATE_KEY, 'private-key', 'pem-private-key'))
  return withoutOverlaps(found)
}
