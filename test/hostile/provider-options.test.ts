import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createGate } from '../../src/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { scripted, simulated } from '../../src/providers/index.ts'
import { instrument } from '../../src/otel/index.ts'

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
