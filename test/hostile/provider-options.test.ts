import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createGate } from '../../src/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { scripted, simulated } from '../../src/providers/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { aiSdk, reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langchainMiddleware } from '../../src/integrations/langchain.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { recordTrace } from '../../src/trace/index.ts'
import { Refund } from '../support/schemas.ts'

describe('provider factories given what cannot be a provider', () => {
  it.each([
    ['null', null],
    ['no client', {}],
    ['a client that is a number', { client: 5 }],
    ['an Anthropic client', { client: new Anthropic({ apiKey: 'k', maxRetries: 0 }) }],
  ])('openai() refuses %s, naming the client it needs', (_name, options) => {
    expect(() => openai(options as never)).toThrow(TypeError)
    expect(() => openai(options as never)).toThrow(
      /openai: options\.client must be an OpenAI client \(new OpenAI\(\{ maxRetries: 0 \}\)\), with chat\.completions\.create\(\)/,
    )
  })

  it.each([
    ['null', null],
    ['no client', {}],
    ['an OpenAI client', { client: new OpenAI({ apiKey: 'k', maxRetries: 0 }) }],
  ])('anthropic() refuses %s, naming the client it needs', (_name, options) => {
    expect(() => anthropic(options as never)).toThrow(/anthropic: options\.client must be an Anthropic client .*messages\.create\(\)/)
  })

  it('both take their SDK client', () => {
    expect(openai({ client: new OpenAI({ apiKey: 'k', maxRetries: 0 }) }).name).toBe('openai')
    expect(anthropic({ client: new Anthropic({ apiKey: 'k', maxRetries: 0 }) }).name).toBe('anthropic')
  })

  it('scripted() refuses steps that are not a list, and options that are not an object', () => {
    expect(() => scripted(null as never)).toThrow(/scripted: steps must be an array of answers, got null/)
    expect(() => scripted('{"a":1}' as never)).toThrow(/scripted: steps must be an array of answers, got string/)
    expect(() => scripted(['x'], 'name' as never)).toThrow(/scripted: options must be an object, got string/)
  })

  it('simulated() refuses options that are not an object and faults it cannot make, listing them', () => {
    expect(() => simulated(null as never)).toThrow(/simulated: options must be an object, got null/)
    expect(() => simulated(7 as never)).toThrow(/simulated: options must be an object, got number/)
    expect(() => simulated({ faults: 'often' as never })).toThrow(/simulated: faults must be 'random' or an array of faults, got "often"/)
    expect(() => simulated({ faults: ['missing_required'] as never })).toThrow(
      /simulated: "missing_required" is not a fault; the faults are number-as-string, missing-required/,
    )
    expect(simulated({ faults: ['missing-required'] }).name).toBe('simulated')
    expect(simulated({ faults: 'random' }).name).toBe('simulated')
  })
})

describe('instrument() given what it cannot instrument', () => {
  it('refuses something without events, and options that are not an object', () => {
    expect(() => instrument(null as never)).toThrow(/instrument: expected a gate or an agent \(something with on\(\)\)/)
    expect(() => instrument({} as never)).toThrow(/instrument: expected a gate or an agent/)
    const gate = createGate({ providers: [scripted(['x'])] })
    expect(() => instrument(gate, null as never)).toThrow(/instrument: options must be an object, got null/)
    const stop = instrument(gate)
    expect(typeof stop).toBe('function')
    stop()
  })
})

describe('the AI SDK entry, the Redis store and the trace recorder given what cannot work', () => {
  it('aiSdk() refuses something that is no language model', () => {
    expect(() => aiSdk(null as never)).toThrow(/aiSdk: expected an AI SDK language model \(specificationVersion v3 or v4, with doGenerate\(\)\)/)
    expect(() => aiSdk({ modelId: 'gpt-4o' } as never)).toThrow(/aiSdk: expected an AI SDK language model/)
  })

  it('reliabilityMiddleware() refuses, when made, what each call’s gate would refuse', () => {
    expect(() => reliabilityMiddleware(null as never)).toThrow(/reliabilityMiddleware: options must be an object, got null/)
    expect(() => reliabilityMiddleware({ streamMode: 'progressive' as never })).toThrow(
      /reliabilityMiddleware: streamMode must be 'buffer' or 'passthrough', got "progressive"/,
    )
    expect(() => reliabilityMiddleware({ postDecide: 5 as never })).toThrow(/reliabilityMiddleware: postDecide must be an array of rules/)
    expect(() => reliabilityMiddleware({ repair: 'yes' as never })).toThrow(/reliabilityMiddleware: repair must be a boolean, got "yes"/)
    expect(() => reliabilityMiddleware({ outputSchema: 5 as never })).toThrow(/compileSchema expects a TypeBox schema/)
    expect(() => reliabilityMiddleware({ name: '' })).toThrow(/reliabilityMiddleware: name must be a non-empty string, got ""/)
    expect(() => langchainMiddleware({ name: '' })).toThrow(/name must be a non-empty string, got ""/)
    expect(() => reliabilityMiddleware({ outputSchema: Refund, postDecide: [] })).not.toThrow()
  })

  it('redisStore() refuses a client without eval and evalsha, and options that are not an object', () => {
    expect(() => redisStore(null as never)).toThrow(/redisStore: client must be a Redis client with eval\(\) and evalsha\(\) .*missing eval\(\), evalsha\(\)/)
    expect(() => redisStore({ eval: async () => 1 } as never)).toThrow(/missing evalsha\(\)/)
    const client = { eval: async () => 1, evalsha: async () => 1 }
    expect(() => redisStore(client, 'rg:' as never)).toThrow(/redisStore: options must be an object, got string/)
    expect(typeof redisStore(client, { keyPrefix: 'rg:' }).reserve).toBe('function')
  })

  it('recordTrace() refuses a missing path and a source without events', () => {
    const gate = createGate({ providers: [scripted(['x'])] })
    expect(() => recordTrace(gate, null as never)).toThrow(/recordTrace: expected \{ path \} naming the file to write/)
    expect(() => recordTrace(gate, { path: '' })).toThrow(/recordTrace: expected \{ path \}/)
    expect(() => recordTrace([gate, {} as never], { path: '/tmp/never-written.jsonl' })).toThrow(/recordTrace: expected a gate or an agent, or a list of them/)
  })
})
