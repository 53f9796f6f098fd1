/**
 * How a final answer's structure is asked of the provider:
 * - `'native'`: the provider's own structured-output mode (OpenAI strict `json_schema`, Anthropic
 *   `output_config.format`, the AI SDK's `responseFormat` with a schema), with the schema compiled
 *   for that provider;
 * - `'json'`: JSON mode without a schema (OpenAI `response_format: {type: 'json_object'}`, the AI
 *   SDK's `responseFormat: {type: 'json'}`), the schema in the instructions;
 * - `'prompt'`: the schema in the instructions only;
 * - `'auto'`: the highest of those the provider has and the schema allows.
 *
 * Whatever the mode, the gate validates the answer against the original schema.
 */
export type OutputMode = 'auto' | 'native' | 'json' | 'prompt'

/** A mode as a request sends it: `'auto'` settled for one provider. */
export type WireOutputMode = Exclude<OutputMode, 'auto'>

/** Every {@link OutputMode}. */
export const OUTPUT_MODES: readonly OutputMode[] = Object.freeze(['auto', 'native', 'json', 'prompt'])

/** The schema dialect of a provider's native structured-output mode (the targets of `compileProviderSchema`). */
export type SchemaDialect = 'openai-strict' | 'anthropic' | 'gemini'

/**
 * The structured-output modes a provider has, declared by its adapter: the dialect its native mode
 * takes (none: no native mode) and whether it has a JSON mode. A provider that declares nothing is
 * asked in `prompt` mode.
 */
export interface ProviderOutputModes {
  readonly native?: SchemaDialect
  readonly json?: boolean
}

const RANK: Readonly<Record<WireOutputMode, number>> = { native: 2, json: 1, prompt: 0 }

/** The lower of two modes (`native` > `json` > `prompt`). */
export function lowerMode(a: WireOutputMode, b: WireOutputMode): WireOutputMode {
  return RANK[a] <= RANK[b] ? a : b
}

/** The mode one step down, `undefined` below `prompt`. */
export function modeBelow(mode: WireOutputMode): WireOutputMode | undefined {
  return mode === 'native' ? 'json' : mode === 'json' ? 'prompt' : undefined
}
