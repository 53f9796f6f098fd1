import {
  circuitBreaker,
  createGate,
  memoryStore,
  sharedBudget,
  sharedRateLimit,
  type Gate,
  type ModelResponse,
  type Provider,
  type StateStore,
} from '../../src/index.ts'
import { PRODUCTION_MODEL, PRODUCTION_PRICING } from '../contenders/production.ts'
import { PAYLOADS, Refund, USER_MESSAGE } from '../scenarios.ts'

/** Which policies a fleet gate has: none, the three on `memoryStore()`, the three or the budget alone on the given store. */
export type FleetPolicies = 'none' | 'memory' | 'three' | 'budget'

/** The answer every call gets at once: valid at the first attempt, so one run is one attempt. */
const ANSWER: ModelResponse = Object.freeze({
  content: PAYLOADS.valid,
  toolCalls: [],
  usage: { inputTokens: 120, outputTokens: 12 },
  stopReason: 'end',
})

/** The request of every run. */
export const FLEET_REQUEST = { messages: [{ role: 'user' as const, content: USER_MESSAGE }] }

/**
 * A provider that answers at once (a resolved promise), calling `onCall` first: the bench reads its
 * round-trip counter there, to split what an attempt sends before the call from what it sends after.
 */
export function instantProvider(onCall: () => void = () => {}): Provider {
  return {
    name: 'llm',
    complete() {
      onCall()
      return Promise.resolve(ANSWER)
    },
  }
}

/**
 * A provider that answers after `ms` (a timer), as a real model answers after a while: its attempts
 * stay in flight, and so do their budget reservations.
 */
export function delayedProvider(ms: number): Provider {
  return {
    name: 'llm',
    complete: () => new Promise((resolve) => setTimeout(resolve, ms, ANSWER)),
  }
}

/**
 * A gate as a fleet runs it, on `store` (ignored for `none` and `memory`): a circuit breaker, a
 * shared budget and a shared rate limit, all on one store (`budget`: the shared budget alone). The
 * budget (1e9 USD) and the rate limit (1e9 calls a minute) never trip; every attempt still reserves
 * and settles, takes a slot and asks the breaker. Keys are the same in every process: the fleet
 * shares one budget, one window and one breaker.
 */
export function fleetGate(policies: FleetPolicies, store: StateStore | undefined, provider: Provider): Gate<unknown> {
  const base = { providers: provider, model: PRODUCTION_MODEL, pricing: PRODUCTION_PRICING, outputSchema: Refund }
  if (policies === 'none') return createGate(base)
  const on = policies === 'memory' ? memoryStore() : store
  if (on === undefined) throw new TypeError(`fleetGate: policies '${policies}' need a store`)
  const budget = sharedBudget({ store: on, key: 'fleet:budget', usd: 1e9 })
  if (policies === 'budget') return createGate({ ...base, budget })
  return createGate({
    ...base,
    budget,
    breaker: circuitBreaker({ store: on, failureThreshold: 5, cooldownMs: 30_000 }),
    rateLimit: sharedRateLimit({ store: on, key: 'fleet:rate', limit: 1e9, windowMs: 60_000 }),
  })
}
