import type { EventHub } from '../../events/event-hub.ts'
import type { EventTags } from '../../events/event-map.ts'
import { lowerMode, modeBelow, type OutputMode, type ProviderOutputModes, type WireOutputMode } from '../../model/output-mode.ts'
import type { CompiledProviderSchema, ProviderSchemaResult } from '../../validation/provider-schema/index.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import { BoundedMap } from './bounded-map.ts'

/** Schemas (per provider, per dialect) a gate remembers a mode or a compile for. */
const REMEMBERED = 256

/** Why a schema is sent below the mode asked for. */
export type DemotionCause = 'schema-rejected' | 'uncompilable' | 'no-native-mode'

/**
 * A gate's output-mode state: its `outputMode`, the lowest mode each provider may be sent each
 * schema in (a provider's 400 refusing the schema lowers it, once, for every later run), the
 * schemas compiled per dialect, and the compiled schema behind each native request.
 */
export interface OutputModeState {
  readonly mode: OutputMode | undefined
  readonly events: EventHub
  /** The lowest mode, keyed by `<provider index>:<schema digest>`. */
  readonly floors: BoundedMap<string, WireOutputMode>
  /** Compiles, keyed by `<dialect>:<schema digest>`. */
  readonly compiled: BoundedMap<string, ProviderSchemaResult>
  /** The compile each native schema a request carried came from (keyed by that frozen schema). */
  readonly natives: WeakMap<object, CompiledProviderSchema>
  /** The output schema seen through a native schema's `back` (keyed by that frozen schema). */
  readonly views: WeakMap<object, CompiledSchema<unknown>>
}

/** The output-mode state of a new gate. */
export function outputModeState(mode: OutputMode | undefined, events: EventHub): OutputModeState {
  return {
    mode,
    events,
    floors: new BoundedMap(REMEMBERED),
    compiled: new BoundedMap(REMEMBERED),
    natives: new WeakMap(),
    views: new WeakMap(),
  }
}

/** Who lowers a mode: the run and provider it happened on. */
export interface DemotionSite {
  readonly runId: string
  readonly tags: EventTags | undefined
  readonly providerIdx: number
  readonly provider: string
  readonly modes: ProviderOutputModes | undefined
}

/** The mode below `mode` that `modes` has (`json` needs a JSON mode); `undefined` below `prompt`. */
export function availableBelow(mode: WireOutputMode, modes: ProviderOutputModes | undefined): WireOutputMode | undefined {
  const below = modeBelow(mode)
  return below === 'json' && modes?.json !== true ? 'prompt' : below
}

/**
 * Remembers that the provider of `site` is sent the schema of `digest` in `to` or lower from now
 * on, and reports it (`output_mode_demoted`) the first time.
 */
export function demote(
  state: OutputModeState,
  site: DemotionSite,
  digest: string,
  change: { readonly from: WireOutputMode; readonly to: WireOutputMode; readonly cause: DemotionCause; readonly reason: string },
): void {
  const key = `${site.providerIdx}:${digest}`
  const known = state.floors.get(key)
  // Already as low: nothing new to remember or report.
  if (known !== undefined && lowerMode(known, change.to) === known) return
  state.floors.set(key, change.to)
  if (!state.events.has('output_mode_demoted')) return
  state.events.emit('output_mode_demoted', {
    runId: site.runId,
    ...site.tags,
    provider: site.provider,
    from: change.from,
    to: change.to,
    cause: change.cause,
    reason: change.reason,
    schemaDigest: digest,
  })
}
