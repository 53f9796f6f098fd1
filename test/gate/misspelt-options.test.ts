import { describe, expect, it } from 'vitest'
import { Agent, createGate } from '../../src/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { formatTrace, recordTrace, serveTrace } from '../../src/trace/index.ts'

describe('misspelt options are refused where they are written', () => {
  it.each([
    ['outputschema', 'outputSchema'],
    ['postdecide', 'postDecide'],
    ['timeoutMS', 'timeoutMs'],
  ])('createGate refuses %s, suggesting %s', (key, near) => {
    expect(() => createGate({ providers: scripted(['x']), [key]: true } as never)).toThrow(
      new RegExp(`createGate: unknown option "${key}" \\(did you mean "${near}"\\?\\)`),
    )
  })

  it('bounds a huge or newline-holding option name in the message', () => {
    const key = `a\n${'x'.repeat(10_000)}`
    let message = ''
    try {
      createGate({ providers: scripted(['x']), [key]: 1 } as never)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^createGate: unknown option /)
    expect(message).not.toContain('\n')
    expect(message.length).toBeLessThan(1_000)
  })

  it('Agent.reliability and Agent.create refuse misspelt keys too', () => {
    const builder = Agent.create({ provider: scripted(['x']) })
    expect(() => builder.reliability({ postdecide: [] } as never)).toThrow(/Agent\.reliability: unknown option "postdecide" \(did you mean "postDecide"\?\)/)
    expect(() => Agent.create({ provider: scripted(['x']), maxRetries: 3 } as never)).toThrow(/Agent\.create: unknown option "maxRetries"/)
  })

  it.each([
    ['createGate', 'maxattempts', 'maxAttempts', () => createGate({ providers: scripted(['x']), maxattempts: 2 } as never)],
    ['Agent.create', 'maxiterations', 'maxIterations', () => Agent.create({ provider: scripted(['x']), maxiterations: 2 } as never)],
    // createGate's key on the Agent, where the provider it names is then missing: the slip is what is told.
    ['Agent.create', 'providers', 'provider', () => Agent.create({ providers: [scripted(['x'])] } as never)],
    ['Agent.reliability', 'feedbackmode', 'feedbackMode', () => Agent.create({ provider: scripted(['x']) }).reliability({ feedbackmode: 'none' } as never)],
    ['recordTrace', 'redcat', 'redact', () => recordTrace(createGate({ providers: scripted(['x']) }), { path: 'x.jsonl', redcat: [] } as never)],
    ['instrument', 'tracerprovider', 'tracerProvider', () => instrument(createGate({ providers: scripted(['x']) }), { tracerprovider: {} } as never)],
    [
      'formatTrace',
      'maxchar',
      'maxChars',
      () => formatTrace({ attempts: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 }, { maxchar: 5 } as never),
    ],
  ])('%s words a misspelt key like every other entry point: %s, did you mean %s, then the options', (label, key, near, call) => {
    expect(call).toThrow(TypeError)
    expect(call).toThrow(new RegExp(`^${label.replace('.', '\\.')}: unknown option "${key}" \\(did you mean "${near}"\\?\\); the options are \\w+(, \\w+)*$`))
  })

  it('serveTrace words a misspelt key the same way', async () => {
    await expect(serveTrace('x.jsonl', { prot: 80 } as never)).rejects.toThrow(
      /^serveTrace: unknown option "prot" \(did you mean "port"\?\); the options are port, host$/,
    )
  })
})
