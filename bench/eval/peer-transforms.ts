import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { AnthropicSchemaCompatLayer, GoogleSchemaCompatLayer, OpenAISchemaCompatLayer } from '@mastra/schema-compat'
import type { ProviderTarget } from '../../src/validation/building-blocks.ts'

/** What a peer makes of one schema for one provider: the schema it sends, or why it sends none. */
export type PeerOutcome = { readonly ok: true; readonly schema: unknown } | { readonly ok: false; readonly reason: string }

/** One peer's transform of a JSON Schema for one provider. */
export interface PeerTransform {
  readonly tool: 'mastra' | 'ai-sdk'
  readonly target: ProviderTarget
  /** How it is reached (the function or the wire path), for the report. */
  readonly via: string
  readonly transform: (schema: unknown) => Promise<PeerOutcome>
}

const model = (provider: string, modelId: string) => ({ provider, modelId, supportsStructuredOutputs: true })

/** `@mastra/schema-compat`: each provider's compat layer, `processToJSONSchema` (it takes a plain JSON Schema). */
function mastra(target: ProviderTarget, layer: { processToJSONSchema(schema: never): unknown }, via: string): PeerTransform {
  return {
    tool: 'mastra',
    target,
    via,
    transform: async (schema) => {
      try {
        return { ok: true, schema: layer.processToJSONSchema(structuredClone(schema) as never) }
      } catch (error) {
        return { ok: false, reason: reasonOf(error) }
      }
    },
  }
}

/** Thrown by the capturing `fetch` once it has the body: nothing is sent anywhere. */
class Captured extends Error {}

/**
 * The AI SDK's transform of a schema for one provider, read from the request body its provider
 * builds for `doGenerate({ responseFormat: { type: 'json', schema } })`: the packages do not export
 * the functions (`normalizeOpenAIJsonSchema`, `sanitizeJsonSchema`, `sanitizeResponseJsonSchema` are
 * module-internal), so the body the provider would send is the transform. A capturing `fetch` keeps
 * the body and stops the call.
 */
function aiSdk(
  target: ProviderTarget,
  via: string,
  call: (fetch: typeof globalThis.fetch, schema: unknown) => PromiseLike<unknown>,
  read: (body: Record<string, any>) => unknown,
): PeerTransform {
  return {
    tool: 'ai-sdk',
    target,
    via,
    transform: async (schema) => {
      let body: Record<string, any> | undefined
      const fetch = (async (_url: unknown, init?: { body?: unknown }) => {
        body = JSON.parse(String(init?.body)) as Record<string, any>
        throw new Captured('captured')
      }) as unknown as typeof globalThis.fetch
      try {
        await call(fetch, structuredClone(schema))
      } catch (error) {
        if (body === undefined) return { ok: false, reason: reasonOf(error) }
      }
      if (body === undefined) return { ok: false, reason: 'no request was built' }
      const sent = read(body)
      return sent === undefined ? { ok: false, reason: 'the body carries no schema' } : { ok: true, schema: sent }
    },
  }
}

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'answer' }] }]
const options = (schema: unknown) => ({ prompt, responseFormat: { type: 'json' as const, schema: schema as never } })

/** Every peer transform the census runs, per provider target. */
export const PEER_TRANSFORMS: readonly PeerTransform[] = [
  mastra('openai-strict', new OpenAISchemaCompatLayer(model('openai', 'gpt-4o')), 'OpenAISchemaCompatLayer.processToJSONSchema'),
  mastra('anthropic', new AnthropicSchemaCompatLayer(model('anthropic', 'claude-sonnet-4-5')), 'AnthropicSchemaCompatLayer.processToJSONSchema'),
  mastra('gemini', new GoogleSchemaCompatLayer(model('google', 'gemini-2.5-flash')), 'GoogleSchemaCompatLayer.processToJSONSchema'),
  aiSdk(
    'openai-strict',
    '@ai-sdk/openai chat: response_format.json_schema.schema (strict: true)',
    (fetch, schema) => createOpenAI({ apiKey: 'k', fetch }).chat('gpt-4o').doGenerate(options(schema)),
    (body) => (body['response_format']?.json_schema?.strict === true ? body['response_format'].json_schema.schema : undefined),
  ),
  aiSdk(
    'anthropic',
    '@ai-sdk/anthropic: output_config.format.schema',
    (fetch, schema) => createAnthropic({ apiKey: 'k', fetch })('claude-sonnet-4-5').doGenerate(options(schema)),
    (body) => body['output_config']?.format?.schema ?? body['tools']?.[0]?.input_schema,
  ),
  aiSdk(
    'gemini',
    '@ai-sdk/google: generationConfig.responseJsonSchema',
    (fetch, schema) => createGoogleGenerativeAI({ apiKey: 'k', fetch })('gemini-2.5-flash').doGenerate(options(schema)),
    (body) => body['generationConfig']?.responseJsonSchema ?? body['generationConfig']?.responseSchema,
  ),
]

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 120)
}
