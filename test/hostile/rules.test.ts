import { describe, expect, it } from 'vitest'
import { createGate, type ReliabilityRule, type ReliabilityScope } from '../../src/index.ts'
import { GENERIC_FEEDBACK } from '../../src/gate/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { hostileProxy } from '../support/hostile-values.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { recordEvents } from './support.ts'

const failing = (s: ReliabilityScope): boolean => s.errorKind !== 'ok'
const retry = (extra: Partial<ReliabilityRule> = {}): ReliabilityRule => ({ when: failing, then: 'retry', kind: 'again', ...extra })

/** A gate answering 'not json' then valid JSON, with `rules` as PostDecide. */
function gateWith(postDecide: readonly ReliabilityRule[], outputs: readonly string[] = ['not json', validRefundJson]) {
  const provider = scripted(outputs)
  const gate = createGate({ providers: provider, outputSchema: Refund, postDecide })
  return { gate, provider, ...recordEvents(gate) }
}

describe('hostile rules: when', () => {
  it.each([
    [
      'throws an Error',
      () => {
        throw new Error('broken predicate')
      },
    ],
    [
      'throws a hostile Proxy',
      () => {
        throw hostileProxy()
      },
    ],
    [
      'throws null',
      () => {
        throw null
      },
    ],
  ])('count a when that %s as not matching, report rule_error and fall through to the default', async (_name, when) => {
    const { gate, events } = gateWith([{ when, then: 'retry', kind: 'broken' }])
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'schema-fail', phase: 'post-decide' })
    expect(events.rule_error.map((e) => [e.kind, e.where])).toEqual([['broken', 'when']])
  })

  it.each([
    ['a truthy string', 'yes'],
    ['the number 1', 1],
    ['a Promise of a truthy string (awaited: still not true)', Promise.resolve('yes')],
  ])('count a when answering %s as not matching (only true matches)', async (_name, answer) => {
    const { gate, events } = gateWith([{ when: () => answer as unknown as boolean, then: 'retry', kind: 'loose' }])
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'schema-fail' })
    expect(events.decision.map((e) => e.matched)).toEqual([false])
  })
})

describe('hostile rules: feedbackForLLM', () => {
  const proxy = hostileProxy()
  it.each([
    [
      'throws',
      () => {
        throw new Error('template bug')
      },
      (e: unknown) => e instanceof Error && e.message === 'template bug',
    ],
    // Compared by identity: any matcher reading a hostile Proxy would trip its traps.
    ['rejects with a hostile Proxy', () => Promise.reject(proxy), (e: unknown) => e === proxy],
    ['answers a number', () => 42 as unknown as string, (e: unknown) => e instanceof TypeError],
    ['answers undefined', () => undefined as unknown as string, (e: unknown) => e instanceof TypeError],
    // A blank message is dropped where a provider refuses one (Anthropic): the retry would end on the
    // echoed answer, which the model reads as its own answer to continue.
    ['answers an empty string', () => '', (e: unknown) => e instanceof TypeError],
    ['answers white space only', async () => ' \n\t', (e: unknown) => e instanceof TypeError],
    ['is a blank string', ' ', (e: unknown) => e instanceof TypeError],
  ])('send the generic feedback when feedbackForLLM %s, report rule_error and recover', async (_name, feedbackForLLM, isReported) => {
    const { gate, provider, events } = gateWith([retry({ feedbackForLLM })])
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: validRefund })
    expect(provider.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: GENERIC_FEEDBACK, ephemeral: true })
    expect(events.rule_error.map((e) => e.where)).toEqual(['feedbackForLLM'])
    expect(isReported(events.rule_error[0]?.error)).toBe(true)
  })
})

describe('hostile rules: adjustRequest and delays', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('no')
      },
    ],
    ['asks for NaN maxTokens', () => ({ maxTokens: Number.NaN })],
    ['asks for a negative maxTokens', () => ({ maxTokens: -10 })],
  ])('ignore an adjustRequest that %s and retry the request unchanged', async (_name, adjustRequest) => {
    const { gate, provider } = gateWith([retry({ adjustRequest })])
    await gate.run({ ...ask('x'), maxTokens: 100 })
    expect(provider.requests[1]?.maxTokens).toBe(100)
  })

  /** A retry rule whose adjustRequest getter answers a function on its first `good` reads, then throws. */
  const flakyAdjust = (good: number) => {
    let reads = 0
    const rule = Object.defineProperty(retry(), 'adjustRequest', {
      enumerable: true,
      get: () => {
        if (++reads <= good) return () => ({})
        throw new Error('adjustRequest getter exploded')
      },
    })
    return { rule, reads: () => reads }
  }

  it('fails the run as invalid-rule, never with the getter error, when an adjustRequest getter throws once the rule matched', async () => {
    const { rule } = flakyAdjust(1)
    const { gate } = gateWith([rule])
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: 'invalid-rule' })
  })

  it('ignores an adjustRequest getter that throws only when the request is adjusted: the run retries unchanged', async () => {
    const { rule, reads } = flakyAdjust(2)
    const { gate, provider } = gateWith([rule])
    await expect(gate.run({ ...ask('x'), maxTokens: 100 })).resolves.toMatchObject({ value: validRefund })
    expect(provider.requests[1]?.maxTokens).toBe(100)
    expect(reads()).toBe(3)
  })

  it('refuses at createGate, with a TypeError naming the rule, one whose adjustRequest or failuresOnly is of the wrong type or cannot be read', () => {
    const trapping = (key: string): ReliabilityRule =>
      new Proxy(retry(), {
        get: (target, k) => {
          if (k === key) throw new Error(`trap ${key}`)
          return target[k as keyof ReliabilityRule]
        },
      })
    const made: readonly [() => unknown, RegExp][] = [
      [
        () => createGate({ providers: scripted([]), postDecide: [trapping('adjustRequest')] }),
        /^createGate: postDecide\[0\] is not a rule: its fields cannot be read$/,
      ],
      [
        () => createGate({ providers: scripted([]), postDecide: [trapping('failuresOnly')] }),
        /^createGate: postDecide\[0\] is not a rule: its fields cannot be read$/,
      ],
      [
        () => createGate({ providers: scripted([]), postDecide: [retry({ adjustRequest: 5 as never })] }),
        /^createGate: postDecide\[0\] is not a rule: its adjustRequest must be a function, got 5$/,
      ],
      [
        () => createGate({ providers: scripted([]), preCheck: [retry({ failuresOnly: 'yes' as never })] }),
        /^createGate: preCheck\[0\] is not a rule: its failuresOnly must be a boolean, got "yes"$/,
      ],
    ]
    for (const [make, message] of made) {
      expect(make).toThrow(TypeError)
      expect(make).toThrow(message)
    }
  })

  it('asks a rule whose failuresOnly getter throws after creation about accepted answers too, never failing the gate', async () => {
    let reads = 0
    const seen: string[] = []
    const rule = Object.defineProperty(
      { when: (s: ReliabilityScope) => (seen.push(s.errorKind), false), then: 'retry' as const, kind: 'watch' },
      'failuresOnly',
      {
        enumerable: true,
        get: () => {
          if (++reads === 1) return true
          throw new Error('failuresOnly getter exploded')
        },
      },
    )
    const { gate } = gateWith([rule], [validRefundJson])
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: validRefund })
    expect(seen).toEqual(['ok'])
  })

  it('marks every message of a tail an adjustRequest gives ephemeral, as every tail message is', async () => {
    const { gate, provider } = gateWith([retry({ adjustRequest: () => ({ tail: [{ role: 'user', content: 'Answer with the JSON only.' }] }) })])
    const request = ask('x')
    await gate.run(request)
    expect(provider.requests[1]?.messages.slice(request.messages.length)).toEqual([{ role: 'user', content: 'Answer with the JSON only.', ephemeral: true }])
  })

  it('reports a delayMs function that throws as rule_error and retries at once', async () => {
    const { gate, events } = gateWith([
      retry({
        delayMs: () => {
          throw new Error('clock broke')
        },
      }),
    ])
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: validRefund })
    expect(events.rule_error.map((e) => e.where)).toEqual(['delayMs'])
    expect(events.retry.map((e) => e.delayMs)).toEqual([0])
  })
})

describe('hostile rules: decisions that cannot be carried out', () => {
  it('fails a fallback decision without a fallback as no-fallback', async () => {
    const { gate } = gateWith([{ when: failing, then: 'fallback', kind: 'fb' }])
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'no-fallback', phase: 'post-decide' })
  })

  it('fails a retry-other with no provider left as no-more-providers', async () => {
    const { gate, provider } = gateWith([{ when: failing, then: 'retry-other', kind: 'switch' }])
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'no-more-providers' })
    expect(provider.calls).toBe(1)
  })

  it('stops a rule that retries forever at the safety cap as max-attempts', async () => {
    const provider = scripted(Array.from({ length: 20 }, (_, i) => `not json ${i}`))
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [retry()], maxAttempts: 4 })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'max-attempts', attempts: { length: 4 } })
    expect(provider.calls).toBe(4)
  })

  it('lets a PreCheck rule that does not fail fast go on to the provider', async () => {
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, preCheck: [{ when: () => true, then: 'retry', kind: 'noop' }] })
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: validRefund })
    expect(provider.calls).toBe(1)
  })
})
