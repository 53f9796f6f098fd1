import { describe, expect, it } from 'vitest'
import { Agent } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langchainMiddleware } from '../../src/integrations/langchain.ts'
import { scripted } from '../../src/providers/index.ts'

describe('reliabilityMiddleware (AI SDK) options', () => {
  it('suggests its own option for a misspelt one, not only the gate options', () => {
    expect(() => reliabilityMiddleware({ streammode: 'buffer' } as never)).toThrow(
      /reliabilityMiddleware: unknown option "streammode" \(did you mean "streamMode"\?\)/,
    )
    expect(() => reliabilityMiddleware({ maxToolretries: 1 } as never)).toThrow(/did you mean "maxToolRetries"/)
    expect(() => reliabilityMiddleware({ forcedToolReAsk: true } as never)).toThrow(/did you mean "forcedToolReask"/)
  })

  it('lists its own options beside the gate options', () => {
    let message = ''
    try {
      reliabilityMiddleware({ surelyNot: 1 } as never)
    } catch (error) {
      message = (error as Error).message
    }
    for (const key of ['streamMode', 'maxToolRetries', 'toolGuards', 'logger', 'name', 'forcedToolReask', 'toolGiveUpStops', 'outputSchema', 'postDecide'])
      expect(message).toContain(key)
    expect(message).not.toMatch(/\bproviders\b/)
  })

  it.each([
    ['forcedToolReask', 'yes', TypeError],
    ['toolGiveUpStops', 'no', TypeError],
    ['maxToolRetries', -1, RangeError],
    ['maxToolRetries', 1.5, RangeError],
    ['timeoutMs', 2 ** 31, RangeError],
    ['runTimeoutMs', Number.NaN, RangeError],
    ['maxAttempts', Number.POSITIVE_INFINITY, RangeError],
  ])('refuses %s = %s when the middleware is made', (key, value, type) => {
    expect(() => reliabilityMiddleware({ [key]: value } as never)).toThrow(type)
    expect(() => reliabilityMiddleware({ [key]: value } as never)).toThrow(key)
  })

  it('refuses a logger the Agent refuses, with the same TypeError, in both host middlewares', () => {
    for (const logger of [5, 'console', {}, { info: 'yes' }]) {
      expect(() => Agent.create({ provider: scripted([]), logger } as never), String(logger)).toThrow(TypeError)
      expect(() => reliabilityMiddleware({ logger } as never), String(logger)).toThrow(TypeError)
      expect(() => langchainMiddleware({ logger } as never), String(logger)).toThrow(TypeError)
      expect(() => reliabilityMiddleware({ logger } as never), String(logger)).toThrow(/logger must be/)
    }
    expect(() => reliabilityMiddleware({ logger: { warn: () => undefined } })).not.toThrow()
    expect(() => langchainMiddleware({ logger: console })).not.toThrow()
  })

  it('takes the tool-retry options as booleans', () => {
    expect(() => reliabilityMiddleware({ forcedToolReask: true, toolGiveUpStops: false })).not.toThrow()
  })
})
