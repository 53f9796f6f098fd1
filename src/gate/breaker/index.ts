export { circuitBreaker, isCircuitBreaker } from './circuit-breaker.ts'
export type { CircuitBreaker, CircuitBreakerOptions } from './circuit-breaker.ts'
export type { BreakerPermit, BreakerResult } from './breaker-permit.ts'
export type { BreakerRecord, BreakerState, BreakerTransition } from './breaker-state.ts'
