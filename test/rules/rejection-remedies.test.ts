import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  Agent,
  contextWindowCheck,
  createGate,
  dropRetryEchoRule,
  largerWindowRule,
  lowerMaxTokensRule,
  memorySessionStore,
  MODEL_WINDOWS,
  ProviderError,
  trimWindowRule,
  type Message,
  type ReliabilityScope,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { adjustRequestFor } from '../../src/rules/adjust-request.ts'
import { largerModel } from '../../src/rules/larger-window.ts'
import { windowOf, withModels } from '../../src/rules/model-windows.ts'
import { trimAtUserTurn } from '../../src/rules/trim-window.ts'

const overflow = () => new ProviderError('prompt is too long', { kind: 'context-overflow', status: 400 })

function scope(over: Partial<ReliabilityScope>): ReliabilityScope {
  return { errorKind: 'context-overflow', request: { messages: [] }, ...over } as ReliabilityScope
}

const roles = fc.constantFrom<Message['role']>('system', 'user', 'assistant', 'tool')
const conversation: fc.Arbitrary<Message[]> = fc.array(roles, { maxLength: 30 }).map((rs) => rs.map((role, i): Message => ({ role, content: `m${String(i)}` })))

describe('trimAtUserTurn', () => {
  it('keeps the leading system messages and a suffix that starts with a user message, shorter than before', () => {
    fc.assert(
      fc.property(conversation, fc.double({ min: 0.01, max: 0.99, noNaN: true }), (messages, fraction) => {
        const frozen = Object.freeze(messages.slice())
        const trimmed = trimAtUserTurn(frozen, fraction)
        if (trimmed === undefined) return
        let start = 0
        while (messages[start]?.role === 'system') start++
        expect(trimmed.length).toBeLessThan(messages.length)
        expect(trimmed.slice(0, start)).toEqual(messages.slice(0, start))
        expect(trimmed[start]?.role).toBe('user')
        expect(messages.slice(messages.length - (trimmed.length - start))).toEqual(trimmed.slice(start))
      }),
    )
  })

  it('finds no cut in a history of one user turn', () => {
    expect(trimAtUserTurn([{ role: 'user', content: 'q' }], 0.5)).toBeUndefined()
    expect(
      trimAtUserTurn(
        [
          { role: 'system', content: 's' },
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ],
        0.5,
      ),
    ).toBeUndefined()
  })
})

describe('adjustRequestFor', () => {
  const request = Object.freeze({ messages: Object.freeze([{ role: 'user', content: 'q' } as Message]), maxTokens: 100 })
  const rule = (adjust: unknown) => ({ when: () => true, then: 'retry' as const, kind: 'k', adjustRequest: adjust as never })

  it('ignores each field of the wrong shape and keeps the request itself', () => {
    for (const asked of [
      { maxTokens: 0 },
      { maxTokens: 1.5 },
      { messages: [] },
      { messages: [{ role: 'x', content: 'y' }] },
      { model: '' },
      { tail: 'x' },
      null,
      42,
    ]) {
      expect(
        adjustRequestFor(
          rule(() => asked),
          scope({}),
          { base: request, tail: [] },
        ).base,
      ).toBe(request)
    }
    expect(
      adjustRequestFor(
        rule(() => {
          throw new Error('boom')
        }),
        scope({}),
        { base: request, tail: [] },
      ).base,
    ).toBe(request)
  })

  it('applies the valid fields to a copy, never the given request', () => {
    const next = adjustRequestFor(
      rule(() => ({ maxTokens: 50, model: 'm2', messages: [{ role: 'user', content: 'short' }] })),
      scope({}),
      { base: request, tail: [] },
    )
    expect(next.base).toMatchObject({ maxTokens: 50, model: 'm2', messages: [{ content: 'short' }] })
    expect(request).toEqual({ messages: [{ role: 'user', content: 'q' }], maxTokens: 100 })
  })
})

describe('a refused request', () => {
  it('is never re-sent unchanged, even when a rule answers retry with an adjustment that repeats its values', async () => {
    const adjustments: Record<string, (request: { messages: readonly Message[]; maxTokens?: number; model?: string }) => object> = {
      'the same maxTokens': (r) => ({ maxTokens: r.maxTokens }),
      'the same model': (r) => ({ model: r.model }),
      'a copy of the messages': (r) => ({ messages: r.messages.map((m) => ({ ...m })) }),
      'the request itself': (r) => r,
      'an empty tail': () => ({ tail: [] }),
    }
    for (const [label, adjust] of Object.entries(adjustments)) {
      const provider = scripted([overflow(), overflow(), overflow()])
      const gate = createGate({
        providers: provider,
        model: 'gpt-4o',
        postDecide: [{ when: (s) => s.errorKind === 'context-overflow', then: 'retry', kind: 'mine', failuresOnly: true, adjustRequest: (_s, r) => adjust(r) }],
      })
      await expect(gate.run({ messages: [{ role: 'user', content: 'q' }], maxTokens: 100 }), label).rejects.toMatchObject({ kind: 'context-overflow' })
      expect(provider.calls, label).toBe(1)
    }
  })
})

describe('the rejection remedies', () => {
  it('match only their kinds', () => {
    const other = scope({
      errorKind: 'unknown',
      attemptRequest: {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
        maxTokens: 1000,
        model: 'gpt-4o',
      },
    })
    for (const rule of [trimWindowRule(), lowerMaxTokensRule(), largerWindowRule(), dropRetryEchoRule()]) expect(rule.when(other)).toBe(false)
  })

  it('lowerMaxTokensRule stops at minTokens', () => {
    const rule = lowerMaxTokensRule({ minTokens: 300 })
    expect(rule.adjustRequest(scope({}), { messages: [], maxTokens: 500 }, [])).toEqual({ maxTokens: 300 })
    expect(rule.when(scope({ attemptRequest: { messages: [], maxTokens: 300 } }))).toBe(false)
  })

  it('largerWindowRule moves within the vendor, to the smallest larger window, and never from a model it does not know', () => {
    expect(largerModel(MODEL_WINDOWS, 'gpt-4o-2024-08-06', undefined)).toBe('gpt-5')
    expect(largerModel(MODEL_WINDOWS, 'claude-sonnet-4-20250514', undefined)).toBeUndefined()
    expect(largerModel(MODEL_WINDOWS, 'mystery', undefined)).toBeUndefined()
    expect(largerModel(MODEL_WINDOWS, 'gpt-4o', ['gpt-4o-mini', 'gpt-4.1'])).toBe('gpt-4.1')
    expect(largerWindowRule().when(scope({ attemptRequest: { messages: [], model: 'mystery' } }))).toBe(false)
  })

  it('reads a dated model name by its longest known prefix, and lets the user table win', () => {
    expect(windowOf(MODEL_WINDOWS, 'gpt-4o-mini-2024-07-18')?.contextWindow).toBe(128_000)
    expect(windowOf(withModels({ 'gpt-4o': { contextWindow: 10 } }), 'gpt-4o')?.contextWindow).toBe(10)
    expect(windowOf(MODEL_WINDOWS, 'gpt-4oo')).toBeUndefined()
  })

  it('refuse options of the wrong kind', () => {
    expect(() => trimWindowRule({ dropFraction: 1 })).toThrow(/dropFraction/)
    expect(() => lowerMaxTokensRule({ factor: 2 })).toThrow(/factor/)
    expect(() => largerWindowRule({ models: { m: { contextWindow: -1 } } })).toThrow(/models/)
    expect(() => contextWindowCheck({ models: { m: { contextWindow: 1.5 } } })).toThrow(/models/)
  })

  it('refuse a misspelt or missing key inside a models entry, naming the rule and the model', () => {
    expect(() => largerWindowRule({ models: { m: { contextWindow: 1_000, maxOuputTokens: 100 } as never } })).toThrow(
      new TypeError(
        'largerWindowRule: models["m"]: unknown option "maxOuputTokens" (did you mean "maxOutputTokens"?); the options are contextWindow, maxOutputTokens',
      ),
    )
    expect(() => contextWindowCheck({ models: { m: { maxOutputTokens: 100 } as never } })).toThrow(
      new TypeError('contextWindowCheck: models["m"]: contextWindow is required'),
    )
  })

  it('never keep a window of NaN: an entry whose getter answers NaN after the check is refused where the table is built', () => {
    let reads = 0
    const entry = {
      get contextWindow(): number {
        reads++
        return reads === 1 ? 100 : Number.NaN
      },
    }
    expect(() => contextWindowCheck({ models: { tiny: entry } })).toThrow(/contextWindowCheck: models\["tiny"\]: contextWindow must be an integer/)
  })
})

describe('contextWindowCheck', () => {
  const big = { messages: [{ role: 'user', content: 'x'.repeat(40_000) } as Message], model: 'gpt-4', maxTokens: 100 }

  it('refuses by the estimate the user gives, and refuses nothing when that estimate throws or is no number', () => {
    const check = (estimateTokens: () => number) =>
      contextWindowCheck({ estimateTokens }).when(scope({ errorKind: 'ok', phase: 'pre-check', attemptRequest: big }))
    expect(check(() => 9_000)).toBe(true)
    expect(check(() => 10)).toBe(false)
    expect(check(() => Number.NaN)).toBe(false)
    expect(check(() => Promise.resolve(9_000) as unknown as number)).toBe(false)
  })

  it('lets a request through when the estimate throws, and reports the throw as rule_error', async () => {
    const provider = scripted(['ok'])
    const rule = contextWindowCheck({
      estimateTokens: () => {
        throw new Error('tokenizer broke')
      },
    })
    const gate = createGate({ providers: provider, model: 'gpt-4', preCheck: [rule] })
    const reported: string[] = []
    gate.on('rule_error', (e) => reported.push(`${e.where}: ${(e.error as Error).message}`))
    await expect(gate.run(big)).resolves.toMatchObject({ value: 'ok' })
    expect(provider.requests).toHaveLength(1)
    expect(reported).toEqual(['when: tokenizer broke'])
  })

  it('counts the retry tail and maxTokens against the window', () => {
    const rule = contextWindowCheck({ models: { tiny: { contextWindow: 100 } } })
    const request = { messages: [{ role: 'user', content: 'x'.repeat(200) } as Message], model: 'tiny' }
    expect(rule.when(scope({ errorKind: 'ok', attemptRequest: request }))).toBe(false)
    expect(rule.when(scope({ errorKind: 'ok', attemptRequest: { ...request, maxTokens: 60 } }))).toBe(true)
    expect(rule.when(scope({ errorKind: 'ok', attemptRequest: request, attemptTail: [{ role: 'user', content: 'y'.repeat(300), ephemeral: true }] }))).toBe(
      true,
    )
  })

  it('stops a gate run before the provider is called, with kind context-overflow', async () => {
    const provider = scripted(['never'])
    const gate = createGate({ providers: provider, model: 'gpt-4', preCheck: [contextWindowCheck()] })
    await expect(gate.run(big)).rejects.toMatchObject({ kind: 'context-overflow' })
    expect(provider.requests).toHaveLength(0)
  })
})

describe('remedies and sessions', () => {
  it('leave the stored history whole: a trimmed retry is the attempt only', async () => {
    const store = memorySessionStore()
    const provider = scripted(['a1', 'a2', overflow(), 'a3'])
    const agent = Agent.create({ provider, model: 'gpt-4o', sessions: store })
      .reliability({ postDecide: [trimWindowRule()] })
      .build()
    const session = await agent.session('s')
    await session.run('q1')
    await session.run('q2')
    await session.run('q3')
    expect(provider.requests[3]?.messages.map((m) => m.content)).toEqual(['q3'])
    expect((await store.load('s')).messages.map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3'])
    expect(session.history.map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3'])
  })
})

describe('the model windows table', () => {
  it('takes prototype-key and line-break model names as entries, never as the table prototype', () => {
    const extra = JSON.parse('{"__proto__": {"contextWindow": 1000}, "constructor": {"contextWindow": 2000}, "a\\nb": {"contextWindow": 3000}}')
    const table = withModels(extra)
    expect(Object.getPrototypeOf(table)).toBe(Object.prototype)
    expect(windowOf(table, '__proto__')).toMatchObject({ contextWindow: 1000 })
    expect(windowOf(table, 'constructor')).toMatchObject({ contextWindow: 2000 })
    expect(windowOf(table, 'a\nb')).toMatchObject({ contextWindow: 3000 })
    expect(windowOf(withModels(undefined), 'toString')).toBeUndefined()
    expect(windowOf(withModels(undefined), '__proto__')).toBeUndefined()
  })
})
