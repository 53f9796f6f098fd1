import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  callKey,
  errorClass,
  lastVerdict,
  NO_PROGRESS_DEFAULTS,
  NoProgressDetector,
  noProgressSettings,
  type ProgressEvent,
  type ProgressTurn,
} from '../../src/agent/no-progress/index.ts'

const settings = NO_PROGRESS_DEFAULTS
const callTurn = (tool: string, args: unknown, error?: string): ProgressTurn => ({
  events: [error === undefined ? { kind: 'call', tool, args } : { kind: 'call', tool, args, error }],
  usage: { inputTokens: 100, outputTokens: 10 },
  costUsd: 0.001,
})
const textTurn = (text: string, tool = 'noop', args: unknown = { n: Math.random() }): ProgressTurn => ({
  events: [
    { kind: 'text', text },
    { kind: 'call', tool, args },
  ],
})

/** The step of each turn, in order ('-' for none). */
function steps(turns: readonly ProgressTurn[], given = settings): string[] {
  const detector = new NoProgressDetector(given)
  return turns.map((t) => detector.observe(t)?.step ?? '-')
}

describe('NoProgressDetector', () => {
  it('nudges at the threshold, forces a change one turn later and stops the turn after', () => {
    const turns = Array.from({ length: 5 }, () => callTurn('search', { q: 'x' }))
    expect(steps(turns)).toEqual(['-', '-', 'nudge', 'forced-change', 'stop'])
  })

  it('counts canonically equal arguments as one call: key order, number forms and JSON text', () => {
    const turns = [
      callTurn('search', { a: 1, b: [1.0, { d: 2, c: 3 }] }),
      callTurn('search', '{"b":[1,{"c":3,"d":2}],"a":1.0}'),
      callTurn('search', { b: [1, { c: 3, d: 2 }], a: 1 }),
    ]
    expect(steps(turns)).toEqual(['-', '-', 'nudge'])
    expect(callKey('t', { a: 1e2 }, settings)).toBe(callKey('t', '{"a":100}', settings))
    expect(callKey('t', { a: '1' }, settings)).not.toBe(callKey('t', { a: 1 }, settings))
  })

  it('gives arguments that differ only in key order one key, and different arguments different keys', () => {
    const shuffled = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(shuffled)
      if (typeof value !== 'object' || value === null) return value
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([k, v]) => [k, shuffled(v)]),
      )
    }
    // Arguments are a value or its JSON text: a string given as arguments IS JSON text (the string "0" is
    // the number 0), so the values generated here are everything JSON holds but a bare string.
    const args = fc.jsonValue().filter((value) => typeof value !== 'string')
    fc.assert(
      fc.property(args, fc.jsonValue(), (a, b) => {
        expect(callKey('t', shuffled(a), settings)).toBe(callKey('t', a, settings))
        expect(callKey('t', JSON.stringify(a), settings)).toBe(callKey('t', a, settings))
        if (
          JSON.stringify(shuffled(a)) !== JSON.stringify(b) &&
          JSON.stringify(a) !== JSON.stringify(b) &&
          callKey('t', a, settings) === callKey('t', b, settings)
        ) {
          // Equal keys for different values only when they are the same value in another key order.
          expect(callKey('t', shuffled(b), settings)).toBe(callKey('t', a, settings))
        }
      }),
    )
  })

  it('gives a loopKey a copy: one that changes its argument leaves the call as the model made it', () => {
    const mutating = noProgressSettings({ loopKey: { refund: (a) => delete (a as { order?: unknown }).order } }, 't') ?? settings
    const args = { order: 'A-1', amount: 5 }
    callKey('refund', args, mutating)
    expect(args).toEqual({ order: 'A-1', amount: 5 })
  })

  it('gives arguments that cannot be read as JSON a key equal to no other call: no loop is invented', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const throwing = Object.defineProperty({}, 'q', {
      enumerable: true,
      get: () => {
        throw new Error('no')
      },
    })
    for (const args of [cyclic, throwing, { n: 1n }]) {
      expect(callKey('search', args, settings)).not.toBe(callKey('search', args, settings))
    }
  })

  it('never hands a loopKey arguments holding a __proto__ key or a constructor holding a prototype: they are compared whole', () => {
    const seen: unknown[] = []
    const byQuery =
      noProgressSettings(
        {
          loopKey: {
            search: (a) => {
              seen.push(a)
              return (a as { q?: unknown }).q
            },
          },
        },
        't',
      ) ?? settings
    const proto = JSON.parse('{"q":"x","__proto__":{"admin":true}}')
    const ctor = '{"q":"x","nested":{"constructor":{"prototype":{"admin":true}}}}'
    expect(callKey('search', proto, byQuery)).toBe(callKey('search', proto, settings))
    expect(callKey('search', ctor, byQuery)).toBe(callKey('search', ctor, settings))
    expect(callKey('search', proto, byQuery)).not.toBe(callKey('search', { q: 'x' }, byQuery))
    expect(seen).toEqual([{ q: 'x' }])
  })

  it('compares by the whole arguments when a loopKey answers a promise', () => {
    const asyncKey = noProgressSettings({ loopKey: { search: async (a) => a } }, 't') ?? settings
    expect(callKey('search', { q: 1 }, asyncKey)).not.toBe(callKey('search', { q: 2 }, asyncKey))
  })

  it('compares by the tool loopKey, and by the whole arguments when the key function throws', () => {
    const byQuery = noProgressSettings({ loopKey: { search: (a) => (a as { q: string }).q } }, 'test') ?? settings
    const pages = [1, 2, 3].map((page) => callTurn('search', { q: 'x', page }))
    expect(steps(pages, byQuery)).toEqual(['-', '-', 'nudge'])
    expect(steps(pages)).toEqual(['-', '-', '-'])
    const throwing =
      noProgressSettings(
        {
          loopKey: {
            search: () => {
              throw new Error('bug')
            },
          },
        },
        'test',
      ) ?? settings
    expect(steps(pages, throwing)).toEqual(['-', '-', '-'])
  })

  it('never counts an exempt tool, and an exempt call between repeats does not hide them', () => {
    const poll = noProgressSettings({ exempt: ['job_status', 'think'] }, 'test') ?? settings
    expect(
      steps(
        Array.from({ length: 6 }, () => callTurn('job_status', { id: 1 })),
        poll,
      ),
    ).toEqual(['-', '-', '-', '-', '-', '-'])
    const interleaved = [
      callTurn('get', { id: 1 }),
      callTurn('think', { t: 'a' }),
      callTurn('get', { id: 1 }),
      callTurn('think', { t: 'b' }),
      callTurn('get', { id: 1 }),
    ]
    expect(steps(interleaved, poll)).toEqual(['-', '-', '-', '-', 'nudge'])
  })

  it('follows one tool error class across different arguments and other tools between', () => {
    const turns: ProgressTurn[] = []
    for (let i = 0; i < 7; i++) {
      turns.push(callTurn('book', { amount: 800 + i }, `Error: payment amount does not add up, total price is 1203, but paid ${800 + i}`))
      turns.push(callTurn('think', { thought: `try ${i}` }))
    }
    const got = steps(turns)
    expect(got.filter((s) => s !== '-')).toEqual(['nudge', 'forced-change', 'stop'])
    // The fifth error (turn index 8) starts the ladder.
    expect(got.indexOf('nudge')).toBe(8)
  })

  it('resets an error streak on a success of that tool or on another error class', () => {
    const turns = [
      callTurn('book', { a: 1 }, 'Error: seat 14C taken'),
      callTurn('book', { a: 2 }, 'Error: seat 9A taken'),
      callTurn('book', { a: 3 }),
      callTurn('book', { a: 4 }, 'Error: seat 1B taken'),
      callTurn('book', { a: 5 }, 'Error: payment declined'),
    ]
    expect(steps(turns, noProgressSettings({ errorRepeats: 2 }, 't'))).toEqual(['-', 'nudge', '-', '-', '-'])
  })

  it('detects two calls alternating at the ping-pong threshold, in calls', () => {
    const turns = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? callTurn('a', { x: 1 }) : callTurn('b', { y: 2 })))
    expect(steps(turns)).toEqual(['-', '-', '-', '-', '-', '-', '-', 'nudge', 'forced-change', 'stop'])
    const verdict = lastVerdict(settings, turns)
    expect(verdict).toMatchObject({ step: 'stop', pattern: 'ping-pong', tools: ['a', 'b'], count: 10, threshold: 8 })
  })

  it('detects byte-identical assistant text, not text that differs by one character', () => {
    const same = Array.from({ length: 5 }, () => textTurn('Let me check that for you.'))
    expect(steps(same)).toEqual(['-', '-', 'nudge', 'forced-change', 'stop'])
    const differ = Array.from({ length: 5 }, (_, i) => textTurn(`Let me check that for you${'.'.repeat(i + 1)}`))
    expect(steps(differ)).toEqual(['-', '-', '-', '-', '-'])
  })

  it('resumes a broken loop on the rung it reached: a different turn between buys nothing', () => {
    const x = () => callTurn('get', { id: 7 })
    const turns = [x(), x(), x(), x(), callTurn('other', {}), x(), x(), x()]
    expect(steps(turns)).toEqual(['-', '-', 'nudge', 'forced-change', '-', '-', '-', 'stop'])
  })

  it('counts a call to a withheld tool as the loop going on, whatever its answer says', () => {
    const fail = (i: number) => callTurn('pay', { amount: i }, `Error: declined ${i}`)
    const withheld: ProgressTurn = { events: [{ kind: 'call', tool: 'pay', args: { amount: 99 }, withheld: true }] }
    expect(steps([fail(1), fail(2), fail(3), fail(4), fail(5), fail(6), withheld])).toEqual(['-', '-', '-', '-', 'nudge', 'forced-change', 'stop'])
    // A withheld call starts nothing on its own.
    expect(steps([withheld, withheld])).toEqual(['-', '-'])
  })

  it('reports the turns, tokens and cost spent since progress stopped', () => {
    const turns = Array.from({ length: 5 }, () => callTurn('search', { q: 'x' }))
    const verdict = lastVerdict(settings, turns)
    expect(verdict).toMatchObject({ step: 'stop', turnsSinceProgress: 4, usage: { inputTokens: 400, outputTokens: 40 }, usageKnown: true })
    expect(verdict?.costUsd).toBeCloseTo(0.004, 10)
    const unknown = lastVerdict(settings, [{ events: [{ kind: 'call', tool: 's', args: {} }] }, ...turns.slice(1)])
    expect(unknown?.usageKnown).toBe(true)
    const noUsage = lastVerdict(settings, [
      turns[0] as ProgressTurn,
      { events: [{ kind: 'call', tool: 'search', args: { q: 'x' } }] },
      turns[0] as ProgressTurn,
    ])
    expect(noUsage).toMatchObject({ step: 'nudge', usageKnown: false, usage: { inputTokens: 100 } })
  })

  it('forces the change by withholding the looping tools, or with no tools for a text loop or on request', () => {
    const four = Array.from({ length: 4 }, () => callTurn('search', { q: 'x' }))
    expect(lastVerdict(settings, four)?.forced).toEqual({ withhold: ['search'] })
    expect(lastVerdict(noProgressSettings({ forcedChange: 'no-tools' }, 't') ?? settings, four)?.forced).toEqual({ toolChoice: 'none' })
    expect(
      lastVerdict(
        settings,
        Array.from({ length: 4 }, () => textTurn('same')),
      )?.forced,
    ).toEqual({ toolChoice: 'none' })
  })

  it('bounds and flattens what the model wrote into the nudge', () => {
    const name = `evil\nline ${'x'.repeat(500)}`
    const verdict = lastVerdict(
      settings,
      Array.from({ length: 3 }, () => callTurn(name, {})),
    )
    expect(verdict?.message).not.toContain('\n')
    expect(verdict?.message.length).toBeLessThan(400)
  })

  it('never climbs more than one rung per turn, whatever one turn holds', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 8 }), { maxLength: 20 }), (names) => {
        const detector = new NoProgressDetector(settings)
        let stopped = false
        let rungs = 0
        for (const batch of names) {
          const events: ProgressEvent[] = batch.map((tool) => ({ kind: 'call', tool, args: {} }))
          const verdict = detector.observe({ events })
          if (verdict === undefined) continue
          // Rungs in order: a stop is never first; each verdict's count is at or past its threshold.
          expect(verdict.count).toBeGreaterThanOrEqual(verdict.threshold)
          if (verdict.step === 'stop') stopped = true
          rungs++
        }
        if (stopped) expect(rungs).toBeGreaterThanOrEqual(3)
      }),
    )
  })
})

describe('errorClass', () => {
  it('writes every token holding a digit as #, and keeps the words', () => {
    expect(errorClass('Error: flight HAT030 not available on date 2024-05-13')).toBe('Error: flight # not available on date #')
    expect(errorClass('Error: not enough balance in payment method gift_card_5094406\nstack...')).toBe('Error: not enough balance in payment method #')
    expect(errorClass('Error: seat taken')).not.toBe(errorClass('Error: payment declined'))
  })

  it('stays bounded on a huge error', () => {
    expect(errorClass('x'.repeat(1_000_000)).length).toBeLessThanOrEqual(200)
  })
})

describe('noProgressSettings', () => {
  it('turns detection off with false and keeps the defaults when absent', () => {
    expect(noProgressSettings(false, 'Agent.create')).toBeUndefined()
    expect(noProgressSettings(undefined, 'Agent.create')).toBe(NO_PROGRESS_DEFAULTS)
  })

  it('refuses unknown keys with a suggestion, and thresholds out of range', () => {
    expect(() => noProgressSettings({ repeat: 3 } as never, 'Agent.create')).toThrow(/repeat.*repeats/s)
    expect(() => noProgressSettings({ repeats: 1 }, 'Agent.create')).toThrow(RangeError)
    expect(() => noProgressSettings({ pingPong: 2.5 }, 'Agent.create')).toThrow(RangeError)
    expect(() => noProgressSettings({ loopKey: { a: 'x' } } as never, 'Agent.create')).toThrow(TypeError)
    expect(() => noProgressSettings(true as never, 'Agent.create')).toThrow(/must be false or an options object/)
  })

  it('reads loopKey by own keys only: __proto__ is a tool name, toString is no key function', () => {
    const table: Record<string, (args: unknown) => unknown> = {}
    Object.defineProperty(table, '__proto__', { value: () => 'same', enumerable: true })
    const s = noProgressSettings({ loopKey: table }, 't') ?? settings
    expect(callKey('__proto__', { a: 1 }, s)).toBe(callKey('__proto__', { a: 2 }, s))
    expect(callKey('toString', { a: 1 }, s)).not.toBe(callKey('toString', { a: 2 }, s))
    expect(() => noProgressSettings({ loopKey: JSON.parse('{"__proto__": "x"}') }, 't')).toThrow(TypeError)
  })
})
