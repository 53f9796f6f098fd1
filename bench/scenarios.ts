import { Type } from 'typebox'
import { ProviderError } from '../src/index.ts'

/**
 * The benchmark's shared fixtures: one schema, one set of payloads and one scripted answer sequence
 * per scenario, used identically by every contender so that only the library's own work differs.
 */

/**
 * The output schema every contender validates against (TypeBox; peers get the equivalent Zod schema):
 * the `{action, amount}` decision of the targets, closed to unknown fields.
 */
export const Refund = Type.Object(
  {
    action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]),
    amount: Type.Number(),
  },
  { additionalProperties: false },
)

/** The tool whose arguments scenario (d) checks. */
export const LookupArgs = Type.Object({ orderId: Type.String({ pattern: '^A-\\d+$' }) }, { additionalProperties: false })

/** Raw model answers, identical for every contender. */
export const PAYLOADS = {
  valid: '{"action":"refund","amount":50}',
  // Cut off before the amount's value. Not rescuable: the library's default repair closes the object,
  // but `amount: null` still fails the schema, so every contender retries once.
  malformed: '{"action":"refund","amount":',
  // One issue: a number given as text.
  schemaInvalid: '{"action":"refund","amount":"USD 50"}',
  badToolArgs: '{"orderId":42}',
  goodToolArgs: '{"orderId":"A-42"}',
} as const

/** The provider error of scenario (e): a 429, built once and thrown on every call. */
export const RATE_LIMITED = new ProviderError('429 Too Many Requests', { kind: 'rate-limit', status: 429, provider: 'primary' })

/** One step of a scripted conversation: a final answer, a tool call, or a thrown provider error. */
export type Step =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool'; readonly name: string; readonly args: string }
  | { readonly kind: 'error'; readonly error: Error }

/** A scenario: which steps the primary (and, for failover, the secondary) provider answers with. */
export interface Scenario {
  readonly id: 'a' | 'b' | 'c' | 'd' | 'e'
  readonly title: string
  readonly primary: readonly Step[]
  /** Scenario (e) only: the second provider's answers. */
  readonly secondary?: readonly Step[]
}

const text = (t: string): Step => ({ kind: 'text', text: t })

export const SCENARIOS: readonly Scenario[] = [
  { id: 'a', title: '(a) valid on the first try', primary: [text(PAYLOADS.valid)] },
  { id: 'b', title: '(b) malformed JSON, then valid', primary: [text(PAYLOADS.malformed), text(PAYLOADS.valid)] },
  { id: 'c', title: '(c) schema-invalid, then valid', primary: [text(PAYLOADS.schemaInvalid), text(PAYLOADS.valid)] },
  {
    id: 'd',
    title: '(d) bad tool argument, then good',
    primary: [
      { kind: 'tool', name: 'lookup_order', args: PAYLOADS.badToolArgs },
      { kind: 'tool', name: 'lookup_order', args: PAYLOADS.goodToolArgs },
    ],
  },
  {
    id: 'e',
    title: '(e) a 429, then failover to a second provider',
    primary: [{ kind: 'error', error: RATE_LIMITED }],
    secondary: [text(PAYLOADS.valid)],
  },
]

/** The user message every contender sends. */
export const USER_MESSAGE = 'Refund order A-42 for $50: it arrived damaged.'

/** The value every contender must accept on a scenario: the valid answer, or (d) the good tool arguments. */
export function expectedValue(scenario: Scenario): unknown {
  return JSON.parse(scenario.id === 'd' ? PAYLOADS.goodToolArgs : PAYLOADS.valid)
}
