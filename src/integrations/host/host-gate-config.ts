import { checkRules } from '../../gate/check-rules.ts'
import type { GateConfig } from '../../gate/gate-config.ts'
import { circuitBreaker, isCircuitBreaker } from '../../policies/breaker/circuit-breaker.ts'
import type { HostGateOptions } from './host-gate-checks.ts'
import { compileSchema } from '../../validation/schema/compile-schema.ts'

/**
 * The gate options of a host middleware, ready for every call of that middleware. A host makes a
 * gate per call (its provider is the call's model), so what the gate would refuse is refused here,
 * when the middleware is made, and the state that must span the calls is made here once: the
 * breaker (a breaker made from options inside each gate would start closed on every call and never
 * open). The budget and the rate limit are the objects given, so they span the calls already.
 */
export function hostGateConfig<C extends HostGateOptions>(options: C, label: string): C {
  checkRules(options.preCheck, `${label}: preCheck`, 'pre-check')
  checkRules(options.postDecide, `${label}: postDecide`, 'post-decide')
  if (options.outputSchema !== undefined) compileSchema(options.outputSchema)
  return withSharedBreaker(options)
}

/** The options with their breaker made once (see {@link hostGateConfig}). */
function withSharedBreaker<C extends { readonly breaker?: GateConfig<unknown>['breaker'] }>(config: C): C {
  const breaker = config.breaker
  if (breaker === undefined || breaker === false || isCircuitBreaker(breaker)) return config
  return { ...config, breaker: circuitBreaker(breaker) }
}
