import type { ModelRequest } from '../model/request.ts'
import type { CompiledSchema } from '../validation/index.ts'
import { modelFor, type ResolvedProvider } from './resolved-provider.ts'
import type { RunState } from './run-state.ts'

/**
 * The request of a provider without the tail: the caller's, with the provider's model (see
 * `resolveProviders` for the order), the output
 * JSON Schema and the run's signal. When nothing changes it is the caller's own object (never
 * mutated): no copy at all.
 */
export function baseFor<T>(s: RunState<T>, providerIdx: number): ModelRequest {
  return baseRequest(s.g.providers[providerIdx] as ResolvedProvider, s.request, s.schema, s.signal)
}

/** {@link baseFor} from its parts, for a run that has no state yet. */
export function baseRequest(
  entry: ResolvedProvider,
  request: ModelRequest,
  schema: CompiledSchema<unknown> | undefined,
  signal: AbortSignal | undefined,
): ModelRequest {
  const model = modelFor(entry, request.model)
  const responseSchema = request.responseSchema ?? schema?.jsonSchema
  if (model === request.model && responseSchema === request.responseSchema && signal === request.signal) return request
  const base: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = { ...request }
  if (model !== undefined) base.model = model
  if (responseSchema !== undefined) base.responseSchema = responseSchema
  if (signal !== undefined) base.signal = signal
  else if ('signal' in base) delete base.signal
  return base
}
