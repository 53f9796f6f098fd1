import { isDurablePort } from '../../durable/durable-port-of.ts'
import { EventHub } from '../../events/event-hub.ts'
import { isRecord } from '../../model/is-record.ts'
import { missingMethods } from '../../model/options-object.ts'
import type { Admission } from '../../policies/admission.ts'
import type { Stage } from '../../policies/stage.ts'
import type { GateConfig } from '../gate-config.ts'
import { breakerOption } from './breaker-option.ts'
import { budgetOption } from './budget-option.ts'
import type { LinkEnv } from './link-env.ts'
import { rateLimitOption, timeoutOption } from './link-options.ts'
import { contentGuardsOption, isContentGuardList } from './content-guards-option.ts'

/**
 * What an option adds to a run, where it acts:
 * - `setup`: read once when the gate is made (providers, the clock, the event hub), nothing per run;
 * - `check`: the attempt's check link (the schema, repair);
 * - `meter`: the attempt's meter link (prices);
 * - `rules`: PreCheck / PostDecide evaluation;
 * - `retry`: what a retry sends (feedback, its bounds, the safety cap);
 * - `fallback`: the fallback decision;
 * - `run`: the run loop (its deadline);
 * - `link`: a link of the attempt chain, built by `link` (`outer` sits outside the check, `answer`
 *   just inside it, so the check reads what it left, `policy` between the check and the meter);
 *   absent, the option adds no link at all.
 */
export type OptionAct = 'setup' | 'check' | 'meter' | 'rules' | 'retry' | 'fallback' | 'run' | 'link' | 'user-links'

/** One row of the options table. */
export interface OptionRow {
  readonly acts: OptionAct
  /** What the value must be, and the test (checked when the gate is made; numbers and rules check themselves). */
  readonly expected?: readonly [description: string, ok: (value: unknown) => boolean]
  /** The option's stage of the attempt chain (`acts: 'link'`, stage `outer` or `answer`), or `undefined` when the option is absent. */
  readonly link?: (config: GateConfig<unknown>, env: LinkEnv) => Stage<unknown> | undefined
  /**
   * The option's policy (`acts: 'link'`, stage `policy`): the policies together make one stage between the check and
   * the meter, asked at once before the call and told at once after it; `undefined` when the option is absent.
   */
  readonly policy?: (config: GateConfig<unknown>, env: LinkEnv) => Admission | undefined
  /** Where its link sits. */
  readonly stage?: 'outer' | 'answer' | 'policy'
}

const isFunction = (value: unknown): boolean => typeof value === 'function'
const isString = (value: unknown): boolean => typeof value === 'string'
const isBoolean = (value: unknown): boolean => typeof value === 'boolean'
const hasMethods = (value: unknown, ...names: string[]): boolean => missingMethods(value, names).length === 0

/**
 * Every option of `createGate` (and of `Agent.reliability`, which becomes one), with what it adds
 * to a run. Keyed by every key of `GateConfig`: an option without a row does not compile. Links are
 * built in this order within their stage, so the attempt's whole order is readable here:
 * deadline -> check -> output guards -> rate limit -> breaker -> budget -> meter -> the user's middleware -> provider.
 */
export const GATE_OPTIONS: { readonly [K in keyof Required<GateConfig<unknown>>]: OptionRow } = {
  providers: { acts: 'setup' },
  model: { acts: 'setup', expected: ['a non-empty string', (v) => isString(v) && v !== ''] },
  events: { acts: 'setup', expected: ['an EventHub', (value) => value instanceof EventHub] },
  now: { acts: 'setup', expected: ['a function returning milliseconds', isFunction] },
  timeoutMs: { acts: 'link', stage: 'outer', link: timeoutOption },
  outputSchema: { acts: 'check' },
  outputMode: {
    acts: 'setup',
    expected: ["'auto', 'native', 'json' or 'prompt'", (v) => v === 'auto' || v === 'native' || v === 'json' || v === 'prompt'],
  },
  repair: { acts: 'check', expected: ['a boolean', isBoolean] },
  contentGuards: {
    acts: 'link',
    stage: 'answer',
    link: contentGuardsOption,
    expected: ['a list of content guards (contentGuard(), piiGuard(), secretsGuard(), instructionGuard())', isContentGuardList],
  },
  rateLimit: {
    acts: 'link',
    stage: 'policy',
    policy: rateLimitOption,
    expected: ['a shared rate limit made by sharedRateLimit()', (v) => hasMethods(v, 'acquire')],
  },
  breaker: {
    acts: 'link',
    stage: 'policy',
    policy: breakerOption,
    expected: ['circuit breaker options, a CircuitBreaker or false', (v) => v === false || isRecord(v)],
  },
  budget: {
    acts: 'link',
    stage: 'policy',
    policy: budgetOption,
    expected: ['a shared budget made by sharedBudget()', (v) => hasMethods(v, 'reserve', 'settle', 'spent')],
  },
  priceUsage: { acts: 'meter', expected: ['a function (usage, model, provider) => USD', isFunction] },
  pricing: { acts: 'meter', expected: ['a table of prices by model', isRecord] },
  middleware: { acts: 'user-links', expected: ['an array of links', Array.isArray] },
  preCheck: { acts: 'rules' },
  postDecide: { acts: 'rules' },
  feedbackMode: { acts: 'retry', expected: ["'latest' or 'accumulate'", (v) => v === 'latest' || v === 'accumulate'] },
  errorFeedback: { acts: 'retry', expected: ['a boolean', isBoolean] },
  maxFeedbackChars: { acts: 'retry' },
  maxFeedbackTokens: { acts: 'retry' },
  errorTemplate: { acts: 'retry', expected: ['a template string or a function of the variables', (v) => isString(v) || isFunction(v)] },
  retryHint: { acts: 'retry', expected: ['a string', isString] },
  maxAttempts: { acts: 'retry' },
  fallback: { acts: 'fallback', expected: ['a function of the scope', isFunction] },
  runTimeoutMs: { acts: 'run' },
  durable: { acts: 'run', expected: ['a DurablePort (runId, step, sleep)', isDurablePort] },
}

/** Every option name of a gate, for the misspelling check. */
export const GATE_OPTION_NAMES: readonly string[] = Object.freeze(Object.keys(GATE_OPTIONS))

/** The outer stages options add, in table order (absent options add none). */
export function optionStages(config: GateConfig<unknown>, env: LinkEnv): Stage<unknown>[] {
  return built(config, env, (row) => (row.stage === 'outer' ? row.link : undefined))
}

/** The answer stages options add (just inside the check), in table order (absent options add none). */
export function answerStages(config: GateConfig<unknown>, env: LinkEnv): Stage<unknown>[] {
  return built(config, env, (row) => (row.stage === 'answer' ? row.link : undefined))
}

/** The policies options add, in table order (absent options add none). */
export function optionPolicies(config: GateConfig<unknown>, env: LinkEnv): Admission[] {
  return built(config, env, (row) => (row.stage === 'policy' ? row.policy : undefined))
}

/** What the rows' `build` (picked per row) makes, in table order; rows without one, or options absent, add nothing. */
function built<X>(
  config: GateConfig<unknown>,
  env: LinkEnv,
  pick: (row: OptionRow) => ((config: GateConfig<unknown>, env: LinkEnv) => X | undefined) | undefined,
): X[] {
  const out: X[] = []
  for (const row of Object.values(GATE_OPTIONS) as OptionRow[]) {
    const x = pick(row)?.(config, env)
    if (x !== undefined) out.push(x)
  }
  return out
}
