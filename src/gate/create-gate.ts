import { EventHub } from '../events/event-hub.ts'
import { registerHub } from '../events/event-source.ts'
import { positiveInteger } from '../model/assert-number.ts'
import type { GateEvent, GateEventMap, GateEventName } from '../events/event-map.ts'
import type { ModelRequest } from '../model/request.ts'
import type { Message } from '../model/message.ts'
import { pricingTable } from '../policies/pricing/pricing-table.ts'
import { compileSchema, DEFAULT_MAX_FEEDBACK_CHARS, type InferSchema, type OutputSchema } from '../validation/index.ts'
import type { Observable } from 'rxjs'
import { wireSchema } from './wire-schema.ts'
import { outputModeDemotion } from './output-mode/demotion-rule.ts'
import { type OutputModeState, outputModeState } from './output-mode/output-mode-state.ts'
import { buildChain } from './options/build-chain.ts'
import { checkBudgetPricing } from './check-budget-pricing.ts'
import { checkRules, failuresOnlyOf } from './check-rules.ts'
import { providerCall } from './call-provider.ts'
import type { GateConfig } from './gate-config.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { GateInternals, GateRunOptions } from './gate-internals.ts'
import type { GateResult } from './gate-result.ts'
import { runDurable } from './run/durable-run.ts'
import { gateRun } from './run/run-gate.ts'
import { resolveProviders } from './resolved-provider.ts'
import { checkConfig } from './options/check-options.ts'
import { guardsOf } from './options/content-guards-option.ts'
import { checkRequest } from '../model/request-problem.ts'
import { checkRunOptions, GATE_STREAM_OPTIONS } from './run-options-contract.ts'
import { streamGate } from './stream/stream-gate.ts'
import type { GateStream } from './stream/gate-stream.ts'
import type { GateStreamOptions } from './stream/gate-stream-event.ts'

const NO_OPTIONS: GateRunOptions = Object.freeze({})

/** The reliability gate: validated, retried, observable model calls. */
export interface Gate<T = unknown> {
  /**
   * Runs the attempt loop for one request. Resolves with the accepted answer or rejects with a
   * `ReliabilityFailFastError` carrying every attempt's log. A request that is not an object with a
   * `messages` array, a request or options with a key they do not take (a misspelt `toolchoice`,
   * `runTimoutMs`: refused with "did you mean"), or an option of the wrong type or range (a
   * `runTimeoutMs` that is not whole milliseconds from 1 to 2^31-1) is rejected with a `TypeError`
   * or `RangeError`, before any provider call or event; it never throws at the caller.
   */
  run(request: ModelRequest, options?: GateRunOptions): Promise<GateResult<T>>
  /**
   * Runs the same loop over streaming provider calls: an AsyncIterable of events (and
   * `.observable`), with `.result` for the accepted result. `mode`: `passthrough` (default),
   * `buffer` or `progressive`. Throws a `TypeError` (or `RangeError`) at once for a request or
   * options that `run` would refuse.
   */
  stream(request: ModelRequest, options?: GateStreamOptions): GateStream<T>
  /** Subscribes to one event; returns the unsubscribe function. */
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void
  /** Every event, as an rxjs Observable. */
  readonly events$: Observable<GateEvent>
  readonly config: Readonly<GateConfig<T>>
}

/**
 * Creates a gate. The configuration is validated and frozen; the output schema is compiled and the
 * attempt chain composed once. `value` has the output schema's type (`Static<typeof Refund>`, a
 * Standard Schema's output, a `parse` function's return type, `unknown` for a raw JSON Schema), or
 * is the answer's text (`string`) without a schema; a type argument names it instead.
 *
 * @example
 * const gate = createGate({ providers: simulated(), outputSchema: Refund, postDecide: strictOutputRules(3) })
 * const { value } = await gate.run({ messages: [{ role: 'user', content: 'refund order #42 for $50' }] })
 */
export function createGate<S extends OutputSchema<unknown>>(config: GateConfig<InferSchema<S>> & { readonly outputSchema: S }): Gate<InferSchema<S>>
/** Without an output schema: `value` is the answer's text. */
export function createGate(config: GateConfig<string> & { readonly outputSchema?: undefined }): Gate<string>
/** With an explicit value type. */
export function createGate<T>(config: GateConfig<T>): Gate<T>
export function createGate<T>(config: GateConfig<T>): Gate<T> {
  return buildGate(config).gate
}

/** {@link createGate}, with the settled configuration its runs read. @internal */
export function buildGate<T>(given: GateConfig<T>, label = 'createGate'): { readonly gate: Gate<T>; readonly internals: GateInternals<T> } {
  const blueprint = gateBlueprint(given, label)
  return gateFrom(blueprint, blueprint.config.providers)
}

/** What the gate's providers change of a gate: the rest is its blueprint. */
type ProviderBound = 'providers' | 'outputModes' | 'postDecide' | 'postDecideOnOk' | 'call'

/**
 * A gate's configuration checked and settled once, for every gate made from it with {@link gateFrom}: its rules, chain,
 * compiled schema and its wire copy, guards and limits. A host that builds one gate per call around that call's model
 * (the AI SDK middleware) builds its blueprint once. @internal
 */
export interface GateBlueprint<T> {
  readonly config: GateConfig<T>
  readonly label: string
  readonly frozen: Readonly<GateConfig<T>>
  /** The user's PostDecide rules, checked (the gate's own output-mode demotion goes before them, per gate). */
  readonly postDecide: readonly ReliabilityRule[]
  readonly settled: Omit<GateInternals<T>, ProviderBound>
}

/** The blueprint of the gates of `given` (see {@link GateBlueprint}): everything but the providers, checked and settled. @internal */
export function gateBlueprint<T>(given: GateConfig<T>, label = 'createGate'): GateBlueprint<T> {
  const config = checkConfig(given, label) as GateConfig<T>
  const frozen = Object.freeze({ ...config })
  const events = config.events ?? new EventHub()
  const priceUsage = config.priceUsage ?? (config.pricing !== undefined ? pricingTable(config.pricing) : undefined)
  const warned = new Set<string>()
  const preCheck = checkRules(config.preCheck, `${label}: preCheck`, 'pre-check')
  const postDecide = checkRules(config.postDecide, `${label}: postDecide`, 'post-decide')
  // A pricing table that prices no model counts every attempt as $0, as no pricing does.
  const priced = config.priceUsage !== undefined || (config.pricing !== undefined && Object.keys(config.pricing).length > 0)
  const needsPrice = checkBudgetPricing(config as GateConfig<unknown>, [...preCheck, ...postDecide], priced)
  const { chain, userLinks, stops, durableChain } = buildChain(
    config as GateConfig<unknown>,
    { events, priceUsage, warned, label },
    { events, priceUsage, needsPrice, warned },
  )
  const schema = config.outputSchema === undefined ? undefined : compileSchema<T>(config.outputSchema)
  const settled: Omit<GateInternals<T>, ProviderBound> = {
    schema,
    wireSchema: wireSchema(schema?.jsonSchema),
    preCheck,
    feedbackMode: config.feedbackMode ?? 'latest',
    errorFeedback: config.errorFeedback ?? true,
    maxFeedbackChars: positiveInteger(config.maxFeedbackChars, `${label}: maxFeedbackChars`, DEFAULT_MAX_FEEDBACK_CHARS),
    maxFeedbackTokens: config.maxFeedbackTokens === undefined ? undefined : positiveInteger(config.maxFeedbackTokens, `${label}: maxFeedbackTokens`),
    errorTemplate: config.errorTemplate,
    repair: config.repair ?? true,
    retryHint: config.retryHint,
    maxAttempts: positiveInteger(config.maxAttempts, `${label}: maxAttempts`, 10),
    fallback: config.fallback,
    priceUsage,
    needsPrice,
    warned,
    events,
    now: config.now === undefined ? performance.now.bind(performance) : clockOf(config.now),
    chain,
    userLinks,
    stops,
    durable: config.durable,
    durableChain,
    // A duration checked with the config (checkConfig): whole milliseconds below 2^31.
    runTimeoutMs: config.runTimeoutMs,
    outputGuards: guardsOf(config as GateConfig<unknown>, 'output', label),
    streamGuards: guardsOf(config as GateConfig<unknown>, 'stream', label),
  }
  return { config, label, frozen, postDecide, settled }
}

/**
 * A run of the gate of `internals` on a request and options built from checked parts (an Agent's model call: its history,
 * system prompt, tool specs and run options were checked where they entered), so neither is checked again. @internal
 */
export function runBuilt<T>(internals: GateInternals<T>, request: ModelRequest, options: GateRunOptions): Promise<GateResult<T>> {
  try {
    return runOf(internals, request, options, request.messages)
  } catch (error) {
    return Promise.reject(error)
  }
}

/** The run of a checked request on its `messages`: durable (its own port, else the gate's: each attempt one journaled step, see runDurable) or not. */
function runOf<T>(internals: GateInternals<T>, request: ModelRequest, options: GateRunOptions, messages: readonly Message[]): Promise<GateResult<T>> {
  const port = options.durable ?? internals.durable
  if (port !== undefined) return runDurable(internals, request, options, messages)
  return gateRun(internals, request, options).run(messages)
}

/**
 * A gate of `blueprint` over `given` providers (the config's own, or a host's for one call), with
 * the output-mode memory `outputModes` (a host's for the model it calls, so a demotion outlives the
 * call), else its own. @internal
 */
export function gateFrom<T>(
  blueprint: GateBlueprint<T>,
  given: GateConfig<T>['providers'],
  outputModes: OutputModeState = outputModeState(blueprint.config.outputMode, blueprint.settled.events),
): { readonly gate: Gate<T>; readonly internals: GateInternals<T> } {
  const { config, frozen } = blueprint
  const { events } = blueprint.settled
  const providers = resolveProviders(given, config.model)
  // The gate's own demotion after a 400 refusing the schema comes first: no rule of the user's re-sends it.
  const postDecide = [outputModeDemotion(outputModes, providers), ...blueprint.postDecide]
  const internals: GateInternals<T> = {
    ...blueprint.settled,
    providers,
    outputModes,
    postDecide,
    postDecideOnOk: postDecide.filter((rule) => !failuresOnlyOf(rule)),
    call: providerCall(providers, blueprint.settled.userLinks),
  }
  const gate: Gate<T> = {
    run: (request, options = NO_OPTIONS) => {
      // A misused call answers like a failed run, with a promise, never by throwing at the caller.
      try {
        const checked = checkRequest(request)
        if (typeof checked === 'string') return Promise.reject(new TypeError(`gate.run: ${checked}`))
        if (options !== NO_OPTIONS) checkRunOptions(options)
        return runOf(internals, request, options, checked)
      } catch (error) {
        // A request whose getters throw: their error, as the run's rejection.
        return Promise.reject(error)
      }
    },
    stream: (request, options) => {
      const checked = checkRequest(request)
      if (typeof checked === 'string') throw new TypeError(`gate.stream: ${checked}`)
      // The caller's object goes on (an agent run shares its deadline keyed by it); a duration read again is checked where its timer is made.
      GATE_STREAM_OPTIONS.check(options)
      // A stream's attempts cannot be journaled (a replayed attempt's deltas could not be delivered again): refused, not run unjournaled.
      if (internals.durable !== undefined) throw new TypeError('gate.stream: this gate was made with a durable port, whose runs are journaled; use gate.run')
      return streamGate(internals, request, options ?? NO_OPTIONS, checked)
    },
    on: (name, listener) => events.on(name, listener),
    events$: events.events$,
    config: frozen,
  }
  return { gate: registerHub(gate, events), internals }
}

/**
 * The caller's `now` as the gate's clock: a throw, or an answer that is no number, reads as `NaN` (a
 * duration unknown), never an error out of the run, whose every step reads the clock.
 */
function clockOf(now: () => number): () => number {
  return () => {
    try {
      const time: unknown = now()
      return typeof time === 'number' ? time : Number.NaN
    } catch {
      return Number.NaN
    }
  }
}
