import { type Attributes, type MeterProvider, metrics, type ObservableGauge, type ObservableResult } from '@opentelemetry/api'
import { typeName } from '../model/describe-value.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { boundedName } from './bounded-text.ts'
import { ATTR } from './semconv.ts'

/** What {@link profileMetrics} reads of a reliability profile (`reliabilityProfile()` is one). */
export interface ProfileSource {
  entries(): readonly {
    readonly provider: string
    readonly model: string | undefined
    readonly errorClass: string
    readonly retry: number
    readonly trials: number
    readonly rate: number
    readonly low: number
    readonly high: number
  }[]
  models(): readonly {
    readonly provider: string
    readonly model: string | undefined
    readonly runs: number
    readonly succeeded: number
    readonly attemptsPerSuccess: number | null
    readonly costPerSuccessUsd: number | null
  }[]
}

/** Options of {@link profileMetrics}. */
export interface ProfileMetricsOptions {
  /** Where metrics go. @default the global meter provider (`metrics.getMeterProvider()`) */
  readonly meterProvider?: MeterProvider
  /** The meter's name. @default 'reliability-gate' */
  readonly name?: string
}

/** The options contract of {@link profileMetrics}. */
export const PROFILE_METRICS = optionsContract<ProfileMetricsOptions>('profileMetrics', {
  meterProvider: option.object(),
  name: option.nonEmptyString(),
})

/** The metric names of a reliability profile. */
export const PROFILE_METRIC = {
  recoveryRate: 'reliability_gate.retry.recovery_rate',
  recoveryLow: 'reliability_gate.retry.recovery_rate.low',
  recoveryHigh: 'reliability_gate.retry.recovery_rate.high',
  retries: 'reliability_gate.retry.count',
  successRate: 'reliability_gate.model.success_rate',
  attemptsPerSuccess: 'reliability_gate.model.attempts_per_success',
  costPerSuccess: 'reliability_gate.model.cost_per_success',
} as const

/**
 * Exports a reliability profile as OpenTelemetry observable gauges, read at each collection: per
 * provider, model, error class and retry number the recovery rate and its interval and how many
 * retries it was measured on; per provider and model the success rate, attempts and cost per
 * success. Returns the function that stops exporting. A profile that throws when read is left out
 * of that collection, never thrown into the SDK.
 *
 * @example
 * const stop = profileMetrics(profile, { meterProvider })
 */
export function profileMetrics(profile: ProfileSource, options?: ProfileMetricsOptions): () => void {
  if (typeof profile !== 'object' || profile === null || typeof profile.entries !== 'function' || typeof profile.models !== 'function') {
    throw new TypeError(`profileMetrics: expected a reliability profile (entries() and models()), got ${typeName(profile)}`)
  }
  const o = PROFILE_METRICS.check(options)
  const meter = (o.meterProvider ?? metrics.getMeterProvider()).getMeter(o.name ?? 'reliability-gate')
  const gauges: [ObservableGauge, (result: ObservableResult) => void][] = []
  const gauge = (name: string, description: string, unit: string, observe: (result: ObservableResult) => void): void => {
    const g = meter.createObservableGauge(name, { description, unit })
    const callback = (result: ObservableResult) => {
      try {
        observe(result)
      } catch {
        // A profile that cannot be read leaves this collection without it; the SDK never hears a throw.
      }
    }
    g.addCallback(callback)
    gauges.push([g, callback])
  }
  const retryAttrs = (e: ReturnType<ProfileSource['entries']>[number]): Attributes => ({
    [ATTR.providerName]: boundedName(e.provider),
    [ATTR.requestModel]: boundedName(e.model ?? ''),
    'reliability_gate.error_class': boundedName(e.errorClass),
    'reliability_gate.retry': e.retry,
  })
  const modelAttrs = (m: ReturnType<ProfileSource['models']>[number]): Attributes => ({
    [ATTR.providerName]: boundedName(m.provider),
    [ATTR.requestModel]: boundedName(m.model ?? ''),
  })
  gauge(PROFILE_METRIC.recoveryRate, 'Share of retries after a failure of this class whose answer was accepted', '1', (r) => {
    for (const e of profile.entries()) r.observe(e.rate, retryAttrs(e))
  })
  gauge(PROFILE_METRIC.recoveryLow, 'Lower bound of the 95% interval of the recovery rate', '1', (r) => {
    for (const e of profile.entries()) r.observe(e.low, retryAttrs(e))
  })
  gauge(PROFILE_METRIC.recoveryHigh, 'Upper bound of the 95% interval of the recovery rate', '1', (r) => {
    for (const e of profile.entries()) r.observe(e.high, retryAttrs(e))
  })
  gauge(PROFILE_METRIC.retries, 'Retries the recovery rate was measured on, in the window', '{retry}', (r) => {
    for (const e of profile.entries()) r.observe(e.trials, retryAttrs(e))
  })
  gauge(PROFILE_METRIC.successRate, 'Share of gate calls that succeeded, in the window', '1', (r) => {
    for (const m of profile.models()) if (m.runs > 0) r.observe(m.succeeded / m.runs, modelAttrs(m))
  })
  gauge(PROFILE_METRIC.attemptsPerSuccess, 'Attempts per successful gate call, failed calls included', '{attempt}', (r) => {
    for (const m of profile.models()) if (m.attemptsPerSuccess !== null) r.observe(m.attemptsPerSuccess, modelAttrs(m))
  })
  gauge(PROFILE_METRIC.costPerSuccess, 'Cost per successful gate call, failed calls included', 'USD', (r) => {
    for (const m of profile.models()) if (m.costPerSuccessUsd !== null) r.observe(m.costPerSuccessUsd, modelAttrs(m))
  })
  return () => {
    for (const [g, callback] of gauges.splice(0)) g.removeCallback(callback)
  }
}
