import { lowerMode, type SchemaDialect, type WireOutputMode } from '../../model/output-mode.ts'
import { withLowerMode } from '../../model/schema-instruction.ts'
import type { JsonSchema, ModelRequest } from '../../model/request.ts'
import { compileProviderSchema, type ProviderSchemaResult } from '../../validation/provider-schema/index.ts'
import { wireSchema } from '../wire-schema.ts'
import { availableBelow, demote, type DemotionSite, type OutputModeState } from './output-mode-state.ts'
import { schemaDigest } from './schema-digest.ts'

/**
 * The request a provider is sent for `base` in the mode the request (or else the gate) asks for,
 * settled for that provider: `auto` is the highest mode the provider has and the schema allows;
 * `native` carries the schema compiled for the provider's dialect (`nativeSchema`) or, when it
 * cannot be compiled without changing meaning (or the provider has no native mode), goes one mode
 * down and says so (`output_mode_demoted`, once per provider and schema); `json` needs the
 * provider's JSON mode, else it is `prompt`. `json` and `prompt` carry the schema in the system
 * prompt. A mode a provider refused the schema in (a 400 `schema-rejected`) is never asked again.
 * Without a mode or a schema, `base` itself.
 */
export function resolveOutputMode(state: OutputModeState, site: DemotionSite, base: ModelRequest): ModelRequest {
  const requested = base.outputMode ?? state.mode
  const schema = base.responseSchema
  if (requested === undefined || schema === undefined) return base
  const digest = schemaDigest(schema)
  // A schema JSON cannot write cannot be sent at all: left to the adapter as given.
  if (digest === undefined) return base
  let mode: WireOutputMode = requested === 'auto' ? 'native' : requested
  const floor = state.floors.get(`${site.providerIdx}:${digest}`)
  if (floor !== undefined) mode = lowerMode(mode, floor)
  if (mode === 'native') {
    const dialect = site.modes?.native
    const compiled = dialect === undefined ? undefined : compiledFor(state, dialect, digest, schema)
    if (compiled?.ok === true) return { ...base, outputMode: 'native', nativeSchema: compiled.schema }
    mode = availableBelow('native', site.modes) as WireOutputMode
    if (requested === 'native') {
      const reason =
        compiled === undefined
          ? `provider "${site.provider}" has no native structured-output mode`
          : `the schema cannot be compiled for ${compiled.target} without changing meaning: ${compiled.reason} (at ${compiled.at === '' ? '#' : compiled.at})`
      demote(state, site, digest, { from: 'native', to: mode, cause: compiled === undefined ? 'no-native-mode' : 'uncompilable', reason })
    }
  }
  return withLowerMode(base, mode === 'json' && site.modes?.json === true ? 'json' : 'prompt')
}

/** The schema of `digest` compiled for `dialect`, once per gate; a compiled schema is sent as a frozen copy. */
function compiledFor(state: OutputModeState, dialect: SchemaDialect, digest: string, schema: JsonSchema): ProviderSchemaResult {
  const key = `${dialect}:${digest}`
  const known = state.compiled.get(key)
  if (known !== undefined) return known
  let result: ProviderSchemaResult
  try {
    result = compileProviderSchema(schema, dialect)
  } catch (error) {
    result = { ok: false, target: dialect, reason: `the compiler refused the schema (${error instanceof Error ? error.message : String(error)})`, at: '' }
  }
  if (result.ok) {
    const sent = wireSchema(result.schema) ?? result.schema
    result = { ...result, schema: sent }
    state.natives.set(sent, result)
  }
  state.compiled.set(key, result)
  return result
}
