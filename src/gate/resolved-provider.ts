import type { Provider } from '../model/provider.ts'
import type { ProviderEntry } from './gate-config.ts'

/** A provider with its display name and model settled. */
export interface ResolvedProvider {
  readonly provider: Provider
  readonly name: string
  readonly model: string | undefined
}

/** Normalises the `providers` option to a non-empty failover list. */
export function resolveProviders(
  providers: Provider | readonly (Provider | ProviderEntry)[],
  model: string | undefined,
): readonly ResolvedProvider[] {
  const list = Array.isArray(providers) ? (providers as readonly (Provider | ProviderEntry)[]) : [providers as Provider]
  if (list.length === 0) throw new TypeError('createGate: `providers` must hold at least one provider')
  return list.map((item, i) => {
    const entry: ProviderEntry = isEntry(item) ? item : { provider: item }
    if (typeof entry.provider?.complete !== 'function') {
      throw new TypeError(`createGate: providers[${i}] has no complete() method`)
    }
    return Object.freeze({ provider: entry.provider, name: entry.name ?? entry.provider.name, model: entry.model ?? model })
  })
}

function isEntry(item: Provider | ProviderEntry): item is ProviderEntry {
  return 'provider' in item && typeof (item as ProviderEntry).provider === 'object'
}
