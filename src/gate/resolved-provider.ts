import { messageOf } from '../model/message-of.ts'
import { shownValue, typeName } from '../model/describe-value.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import type { ProviderOutputModes } from '../model/output-mode.ts'
import type { Provider } from '../model/provider.ts'
import type { ProviderEntry } from './gate-config.ts'

/** A provider with its display name and model settled. */
export interface ResolvedProvider {
  readonly provider: Provider
  readonly name: string
  /** The model of this provider: its entry's `model`, else the provider's own (an adapter's configured model). */
  readonly model: string | undefined
  /** The gate's (or agent's) `model`, used when neither this provider nor the request names one. */
  readonly defaultModel: string | undefined
  /**
   * The key of this provider's circuit breaker: its name, unless an earlier, different provider of the
   * list has that name (two adapters of one vendor, both `openai`): then `<name>#2`, `#3`, ..., so its
   * backup never shares the first one's open circuit. The same provider listed twice shares its key.
   */
  readonly breakerKey: string
  /** The provider's `outputModes`, checked and read once when the gate is made. */
  readonly outputModes: ProviderOutputModes | undefined
}

/**
 * Normalises the `providers` option to a non-empty failover list. Which model a provider is asked
 * for, most specific first: its `ProviderEntry.model`, the provider's own `model` (an adapter
 * configured with one), the request's `model`, the gate's or agent's `model`. So a gate-wide
 * default never sends one provider's model name to another.
 */
export function resolveProviders(providers: Provider | readonly (Provider | ProviderEntry)[], model: string | undefined): readonly ResolvedProvider[] {
  if (typeof providers !== 'object' || providers === null) {
    throw new TypeError(`createGate: \`providers\` must be a provider or an array of providers, got ${typeName(providers)}`)
  }
  const list = Array.isArray(providers) ? (providers as readonly (Provider | ProviderEntry)[]) : [providers as Provider]
  if (list.length === 0) throw new TypeError('createGate: `providers` must hold at least one provider')
  const settled = list.map((item, i) => {
    try {
      return resolved(item, i, model)
    } catch (error) {
      // A provider whose fields cannot be read (a Proxy that throws) is refused as any unfit provider is: typed, naming it.
      if (error instanceof TypeError && error.message.startsWith('createGate')) throw error
      throw new TypeError(`createGate: providers[${i}] cannot be read: ${messageOf(error)}`, { cause: error })
    }
  })
  return withBreakerKeys(settled)
}

/** `providers` with their breaker keys (see {@link ResolvedProvider.breakerKey}). */
function withBreakerKeys(providers: readonly Omit<ResolvedProvider, 'breakerKey'>[]): readonly ResolvedProvider[] {
  // The key each provider holds: its name for the first of each name, `<name>#<n>` for a later one,
  // never a key another provider is named or already holds (a provider named `openai#2` keeps it).
  const holder = new Map<string, Provider>()
  for (const entry of providers) if (!holder.has(entry.name)) holder.set(entry.name, entry.provider)
  const keyOf = (entry: Omit<ResolvedProvider, 'breakerKey'>): string => {
    if (holder.get(entry.name) === entry.provider) return entry.name
    for (let n = 2; ; n++) {
      const key = `${entry.name}#${n}`
      const held = holder.get(key)
      if (held === entry.provider) return key
      if (held === undefined) {
        holder.set(key, entry.provider)
        return key
      }
    }
  }
  return providers.map((entry) => Object.freeze({ ...entry, breakerKey: keyOf(entry) }))
}

function resolved(item: Provider | ProviderEntry, i: number, model: string | undefined): Omit<ResolvedProvider, 'breakerKey'> {
  // An entry is an options object like any other: a misspelt `modle` would ask every provider for the gate's model.
  const entry: ProviderEntry = isEntry(item) ? providerEntry(i).check(item) : { provider: item }
  if (entry.provider === null || entry.provider === undefined || typeof entry.provider.complete !== 'function') {
    throw new TypeError(`createGate: providers[${i}] has no complete() method`)
  }
  const name: unknown = entry.name ?? entry.provider.name
  // The name keys the provider's breaker and names it in every attempt log, event, span and price: a
  // provider without one (5, undefined) would share no breaker at all, the failing store swallowed.
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`createGate: providers[${i}].name must be a non-empty string (or give { provider, name }), got ${shownValue(name)}`)
  }
  const own = typeof entry.provider.model === 'string' && entry.provider.model !== '' ? entry.provider.model : undefined
  const modes = entry.provider.outputModes
  // Read once, as checked: a provider's modes decide what goes on the wire on every run.
  const outputModes = modes === undefined ? undefined : Object.freeze(outputModesOf(i).check(modes))
  return { provider: entry.provider, name, model: entry.model ?? own, defaultModel: model, outputModes }
}

/** The contract of `providers[i].outputModes`: a dialect the gate compiles for, and whether it has a JSON mode. */
const outputModesOf = (i: number) =>
  optionsContract<ProviderOutputModes>(`createGate: providers[${i}].outputModes`, {
    native: option.oneOf('openai-strict', 'anthropic', 'gemini'),
    json: option.boolean(),
  })

/** The model a provider is asked for on a request (see {@link resolveProviders} for the order). */
export function modelFor(entry: ResolvedProvider, requested: string | undefined): string | undefined {
  return entry.model ?? requested ?? entry.defaultModel
}

/** The contract of `providers[i]` given as `{ provider, name?, model? }`. */
const providerEntry = (i: number) =>
  optionsContract<ProviderEntry>(`createGate: providers[${i}]`, {
    provider: option.any(),
    name: option.nonEmptyString(),
    model: option.nonEmptyString(),
  })

function isEntry(item: Provider | ProviderEntry): item is ProviderEntry {
  return typeof item === 'object' && item !== null && 'provider' in item && typeof (item as ProviderEntry).provider === 'object'
}
