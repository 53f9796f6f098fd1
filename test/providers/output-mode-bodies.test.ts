import { describe, expect, it } from 'vitest'
import type { ModelRequest, OutputMode } from '../../src/index.ts'
import { aiSdk, toAiSdkCallOptions } from '../../src/providers/ai-sdk/index.ts'
import { anthropic, toAnthropicRequest } from '../../src/providers/anthropic/index.ts'
import { openai, toOpenAIRequest } from '../../src/providers/openai/index.ts'

const original = { type: 'object', properties: { a: { type: 'string' } } }
const native = { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false }
const request = (outputMode?: OutputMode): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  responseSchema: original,
  ...(outputMode !== undefined ? { outputMode, nativeSchema: native } : {}),
})
const oa = (r: ModelRequest, structuredOutput: 'json_schema' | 'strict' | false = 'json_schema') =>
  toOpenAIRequest(r, { model: 'm', structuredOutput, schemaName: 'response', extraBody: undefined })
const an = (r: ModelRequest, structuredOutput = false) =>
  toAnthropicRequest(r, { model: 'm', maxTokens: 10, cache: false, structuredOutput, extraBody: undefined })

describe('output modes in the request bodies', () => {
  it('OpenAI: native is strict json_schema with the native schema, json is json_object, prompt is none, absent is the adapter setting', () => {
    expect(oa(request('native')).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: native, strict: true } })
    // The mode wins over the adapter's own setting, even structuredOutput: false.
    expect(oa(request('native'), false).response_format).toMatchObject({ type: 'json_schema' })
    expect(oa(request('json')).response_format).toEqual({ type: 'json_object' })
    expect(oa(request('prompt')).response_format).toBeUndefined()
    expect(oa(request()).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: original, strict: false } })
    expect(oa(request('auto'), false).response_format).toBeUndefined()
  })

  it('Anthropic: native is output_config.format with the native schema; json and prompt send no format', () => {
    expect(an(request('native')).output_config).toEqual({ format: { type: 'json_schema', schema: native } })
    expect(an(request('json'), true).output_config).toBeUndefined()
    expect(an(request('prompt'), true).output_config).toBeUndefined()
    expect(an(request(), true).output_config).toEqual({ format: { type: 'json_schema', schema: original } })
    expect(an(request()).output_config).toBeUndefined()
  })

  it('AI SDK: native is a JSON format with the native schema, json a JSON format without one, prompt none', () => {
    expect(toAiSdkCallOptions(request('native'), false).responseFormat).toEqual({ type: 'json', schema: native })
    expect(toAiSdkCallOptions(request('json'), true).responseFormat).toEqual({ type: 'json' })
    expect(toAiSdkCallOptions(request('prompt'), true).responseFormat).toBeUndefined()
    expect(toAiSdkCallOptions(request(), true).responseFormat).toEqual({ type: 'json', schema: original })
  })

  it('each adapter declares its modes', () => {
    const client = { chat: { completions: { create: async () => ({}) } }, messages: { create: async () => ({}) } } as never
    expect(openai({ client }).outputModes).toEqual({ native: 'openai-strict', json: true })
    expect(anthropic({ client }).outputModes).toEqual({ native: 'anthropic', json: false })
    const model = (provider: string) =>
      ({ specificationVersion: 'v3', provider, modelId: 'x', supportedUrls: {}, doGenerate: async () => ({}), doStream: async () => ({}) }) as never
    expect(aiSdk(model('openai.chat')).outputModes).toEqual({ native: 'openai-strict', json: true })
    expect(aiSdk(model('anthropic.messages')).outputModes).toEqual({ native: 'anthropic', json: false })
    expect(aiSdk(model('google.generative-ai')).outputModes).toEqual({ json: true })
    expect(aiSdk(model('mistral.chat')).outputModes).toEqual({})
  })
})
