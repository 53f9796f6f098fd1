import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, instructionGuard, piiGuard, secretsGuard } from '../../src/index.ts'
import { noProgressSettings } from '../../src/agent/no-progress/no-progress-options.ts'
import { noProgressSteps } from '../../src/integrations/ai-sdk-middleware/no-progress-steps.ts'
import { scripted } from '../../src/providers/index.ts'
import { screenToolResult } from '../../src/validation/guards/index.ts'

const allow = () => ({ action: 'allow' }) as const

describe('contentGuard options', () => {
  it.each([0, -1, Number.NaN, 1.5, 2 ** 31, 2 ** 31 + 1, Number.POSITIVE_INFINITY])('refuses timeoutMs %s with a RangeError naming it', (timeoutMs) => {
    expect(() => contentGuard('g', allow, { timeoutMs })).toThrow(RangeError)
    expect(() => contentGuard('g', allow, { timeoutMs })).toThrow(/contentGuard: timeoutMs must be a whole number of milliseconds/)
  })

  it.each([-1, 1_000_001, 0.5, Number.NaN])('refuses lookback %s', (lookback) => {
    expect(() => contentGuard('g', allow, { lookback })).toThrow(/contentGuard: lookback must be an integer/)
  })

  it('refuses a misspelt option with "did you mean"', () => {
    expect(() => contentGuard('g', allow, { timeoutMS: 5 } as never)).toThrow(/did you mean "timeoutMs"/)
    expect(() => piiGuard({ kind: ['card'] } as never)).toThrow(/did you mean "kinds"/)
  })

  it('turns an option getter that throws into a TypeError naming the option', () => {
    const options = Object.defineProperty({}, 'lookback', {
      enumerable: true,
      get() {
        throw new Error('getter exploded')
      },
    })
    expect(() => contentGuard('g', allow, options)).toThrow(new TypeError('contentGuard: reading option "lookback" threw: getter exploded'))
  })
})

describe('noProgress options', () => {
  it.each([{ repeats: 0 }, { repeats: 1e9 }, { repeats: Number.NaN }, { pingPong: 3 }, { textRepeats: 1.5 }])('refuses %o with a RangeError', (bad) => {
    expect(() => noProgressSettings(bad, 'Agent')).toThrow(RangeError)
  })

  it('refuses exempt entries that are not strings', () => {
    expect(() => noProgressSettings({ exempt: [1 as unknown as string] }, 'Agent')).toThrow(/exempt must be an array of tool names/)
  })

  it('turns a loopKey getter that throws into a TypeError, when the agent is built', () => {
    const noProgress = Object.defineProperty({}, 'loopKey', {
      enumerable: true,
      get() {
        throw new Error('loopKey exploded')
      },
    })
    expect(() => Agent.create({ provider: scripted(['x']), model: 'm', noProgress }).build()).toThrow(TypeError)
    expect(() => Agent.create({ provider: scripted(['x']), model: 'm', noProgress }).build()).toThrow(/reading option "loopKey" threw: loopKey exploded/)
  })
})

describe('option values whose insides throw when read', () => {
  it('turn a loopKey table with a throwing getter into a TypeError naming loopKey', () => {
    const loopKey = Object.defineProperty({}, 'search', {
      enumerable: true,
      get() {
        throw new Error('inner getter exploded')
      },
    })
    expect(() => noProgressSettings({ loopKey }, 'Agent')).toThrow(new TypeError('noProgress: loopKey could not be read: inner getter exploded'))
  })
})

describe('list options with holes', () => {
  // A sparse array's holes are skipped by Array.prototype.every: each would have been read as undefined.
  const sparse = <T>(value: T): T[] => {
    const list: T[] = []
    list[1] = value
    return list
  }
  it('refuses a sparse exempt, surfaces, trustedServers or kinds list', () => {
    expect(() => noProgressSettings({ exempt: sparse('poll') }, 'Agent')).toThrow(/exempt must be an array of tool names/)
    expect(() => contentGuard('g', allow, { surfaces: sparse('output' as const) })).toThrow(/surfaces must be a non-empty list/)
    expect(() => piiGuard({ trustedServers: sparse('docs') })).toThrow(/trustedServers must be a list of strings/)
    // An empty name trusts a server with no name: never one the caller meant.
    for (const guard of [piiGuard, secretsGuard, instructionGuard])
      expect(() => guard({ trustedServers: [''] })).toThrow(/trustedServers must be a list of strings, none empty/)
    expect(() => piiGuard({ kinds: sparse('card' as const) })).toThrow(/kinds must be a non-empty list/)
    expect(() => noProgressSteps({ tools: sparse('search') })).toThrow(/tools must be an array of tool names/)
    expect(() => screenToolResult('text', { pii: sparse('card' as const) })).toThrow(/pii must be false or a list/)
  })
})
