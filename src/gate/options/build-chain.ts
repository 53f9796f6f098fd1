import { admissionStage } from '../../policies/admission.ts'
import { compileChain, type Chain } from '../../policies/chain.ts'
import type { Stage } from '../../policies/stage.ts'
import type { GateConfig } from '../gate-config.ts'
import type { DurableChain } from '../gate-internals.ts'
import { CHECK_STAGE } from '../run/check-link.ts'
import type { GateAttempt } from '../run/gate-attempt.ts'
import { meterStage } from '../run/meter-link.ts'
import type { MeterSettings } from '../run/meter-report.ts'
import type { LinkEnv } from './link-env.ts'
import { userLinks } from './link-options.ts'
import { answerStages, optionPolicies, optionStages } from './option-table.ts'

/**
 * The attempt chain of a gate, compiled once, outermost first: the options' outer stages (the
 * deadline), the check, the policies (rate limit, breaker, budget: one stage, asked at once), the
 * meter, the user's middleware, then the provider call (supplied per run). Only configured options
 * add stages. For durable runs, the same stages in two parts (see `GateInternals.durableChain`).
 */
export function buildChain(
  config: GateConfig<unknown>,
  env: LinkEnv,
  meter: MeterSettings,
): { readonly chain: Chain<GateAttempt<unknown>>; readonly userLinks: boolean; readonly stops: boolean; readonly durableChain: DurableChain } {
  const user = userLinks(config, env)
  const policies = optionPolicies(config, env)
  const outer = optionStages(config, env)
  const answer = answerStages(config, env) as Stage<unknown, GateAttempt<unknown>>[]
  const inner: Stage<unknown, GateAttempt<unknown>>[] = [...(policies.length > 0 ? [admissionStage(policies)] : []), meterStage(meter)]
  const stages: Stage<unknown, GateAttempt<unknown>>[] = [...outer, CHECK_STAGE, ...answer, ...inner]
  return {
    chain: compileChain(stages, user),
    userLinks: user.length > 0,
    // A chain with a deadline hands on the attempt's own signal, made only if someone reads it.
    stops: stages.some((stage) => stage.stops === true),
    // A durable run's attempt step holds everything below the check and the output guards (pure, as the check: a replay
    // screens the journaled answer again), the attempt's deadline included: the loop never moves on (and starts the next
    // step) while a step still runs, and a replay answers what the step answered.
    durableChain: { outer: compileChain([CHECK_STAGE, ...answer], []), inner: compileChain([...outer, ...inner], user) },
  }
}
