import { describe, expect, it } from 'vitest'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'

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

  it('takes the tool-retry options as booleans', () => {
    expect(() => reliabilityMiddleware({ forcedToolReask: true, toolGiveUpStops: false })).not.toThrow()
  })
})
