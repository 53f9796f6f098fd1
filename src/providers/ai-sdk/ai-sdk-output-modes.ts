import type { ProviderOutputModes } from '../../model/output-mode.ts'

const OPENAI: ProviderOutputModes = Object.freeze({ native: 'openai-strict', json: true })
const ANTHROPIC: ProviderOutputModes = Object.freeze({ native: 'anthropic', json: false })
const JSON_ONLY: ProviderOutputModes = Object.freeze({ json: true })
const PROMPT_ONLY: ProviderOutputModes = Object.freeze({})

/**
 * The output modes of an AI SDK model, from its `provider` id:
 * - `openai.*` and `azure.*`: `@ai-sdk/openai` sends a schema as `json_schema` with `strict: true`
 *   (its `strictJsonSchema` default) and no schema as `json_object`;
 * - `anthropic.*`: `@ai-sdk/anthropic` sends a schema as `output_config.format` (or, on models
 *   without structured outputs, as a forced JSON tool); it has no JSON mode without a schema;
 * - `google.*`: JSON mode only (`responseMimeType`): `@ai-sdk/google` sends a JSON Schema as
 *   `responseJsonSchema`, not the OpenAPI `responseSchema` a `gemini` compile is, so that compile
 *   cannot be handed to it;
 * - any other provider: prompt mode only (nothing known of what it does with a schema).
 */
export function aiSdkOutputModes(provider: string): ProviderOutputModes {
  if (provider.startsWith('openai.') || provider.startsWith('azure.')) return OPENAI
  if (provider.startsWith('anthropic.')) return ANTHROPIC
  if (provider.startsWith('google.')) return JSON_ONLY
  return PROMPT_ONLY
}
