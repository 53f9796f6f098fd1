import type { Message } from '../model/message.ts'
import type { JsonSchema, ModelRequest } from '../model/request.ts'
import { resolveOutputMode } from './output-mode/resolve-output-mode.ts'
import { modelFor, type ResolvedProvider } from './resolved-provider.ts'
import type { RunView } from './run/run-view.ts'

/**
 * The request of a provider without the tail: the caller's, with the provider's model (see
 * `resolveProviders` for the order), the output
 * JSON Schema and the run's signal, and the messages the request's check validated (a failover
 * passes those of the run's base: the caller's `messages` is read once per run), sent in the output
 * mode settled for that provider (see `resolveOutputMode`). When nothing changes it is the caller's
 * own object (never mutated): no copy at all.
 */
export function baseFor<T>(s: RunView<T>, providerIdx: number, messages?: readonly Message[]): ModelRequest {
  const entry = s.g.providers[providerIdx] as ResolvedProvider
  const base = baseRequest(entry, s, messages)
  // No mode to settle (resolveOutputMode would hand `base` back): no site built (~40 B per plain run).
  if ((base.outputMode ?? s.g.outputModes.mode) === undefined || base.responseSchema === undefined) return base
  const site = { runId: s.runId, tags: s.tags, providerIdx, provider: entry.name, modes: entry.outputModes }
  return resolveOutputMode(s.g.outputModes, site, base)
}

/** What {@link baseRequest} reads of a run: the caller's request, the run's signal, and whether (and as what) an output schema goes along. */
export interface BaseSource {
  readonly request: ModelRequest
  readonly signal: AbortSignal | undefined
  readonly settings: { readonly schema: unknown }
  readonly g: { readonly wireSchema: JsonSchema | undefined }
}

/** The caller's request of run `s` for provider `entry`, with `messages`, before any output mode is settled (see {@link baseFor}). */
export function baseRequest(entry: ResolvedProvider, s: BaseSource, messages: readonly Message[] = s.request.messages): ModelRequest {
  const { request, signal } = s
  // The gate's copy of its output schema's JSON Schema, when the run checks one.
  const wireSchema = s.settings.schema === undefined ? undefined : s.g.wireSchema
  const model = modelFor(entry, request.model)
  const responseSchema = request.responseSchema ?? wireSchema
  if (model === request.model && responseSchema === request.responseSchema && signal === request.signal && messages === request.messages) return request
  const base = copyWith(request, responseSchema, model)
  // The spread read `messages` again: the run sends the array that was checked.
  base.messages = messages
  // The caller's own keys (even set to `undefined`) were spread over the added ones.
  if (model !== undefined) base.model = model
  if (responseSchema !== undefined) base.responseSchema = responseSchema
  if (signal !== undefined) base.signal = signal
  else if ('signal' in base) delete base.signal
  return base
}

type MutableRequest = { -readonly [K in keyof ModelRequest]: ModelRequest[K] }

/**
 * A copy of the caller's request with room for the added keys: a literal that names them before the
 * spread holds the caller's keys in the object itself (one allocation), where adding them after the
 * spread needs a second, out-of-object store.
 */
function copyWith(request: ModelRequest, responseSchema: ModelRequest['responseSchema'], model: string | undefined): MutableRequest {
  if (responseSchema === undefined) return model === undefined ? { ...request } : { model, ...request }
  return model === undefined ? { responseSchema, ...request } : { responseSchema, model, ...request }
}
