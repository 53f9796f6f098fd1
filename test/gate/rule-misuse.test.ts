import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGate, type GateEventMap, type ReliabilityRule } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const onFailure = (rule: Partial<ReliabilityRule>): ReliabilityRule =>
  ({ when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'r', ...rule }) as ReliabilityRule

afterEach(() => {
  vi.useRealTimers()
})

describe('rules checked when the gate is created', () => {
  it.each([
    [
      'a then that is no Decision',
      { then: 'maybe' },
      /postDecide\[0\] is not a rule: its then must be one of ok, retry, retry-other, fallback, fail-fast, got "maybe"/,
    ],
    ['a missing then', { then: undefined }, /its then must be one of .*, got undefined/],
    ['a kind that is no string', { kind: 42 }, /its kind must be a non-empty string, got 42/],
    ['an empty kind', { kind: '' }, /its kind must be a non-empty string, got ""/],
    ['a when that is no function', { when: true }, /its when must be a function, got boolean/],
    ['a delayMs that is a string', { delayMs: '10' }, /its delayMs must be a number or a function, got "10"/],
    ['a feedbackForLLM that is a number', { feedbackForLLM: 3 }, /its feedbackForLLM must be a string or a function, got 3/],
    ['a label that is an object', { label: {} }, /its label must be a string, got object/],
    ['a then of continue (a PreCheck decision)', { then: 'continue' }, /postDecide\[0\] is not a rule: its then 'continue' is a PreCheck decision/],
  ])('refuses %s with a TypeError naming the rule', (_name, change, message) => {
    expect(() => createGate({ providers: scripted(['x']), postDecide: [onFailure(change as Partial<ReliabilityRule>)] })).toThrow(message)
  })

  it.each([
    ['delayMS', 'delayMs'],
    ['feedbackForLlm', 'feedbackForLLM'],
    ['failureOnly', 'failuresOnly'],
    ['adjustRequests', 'adjustRequest'],
    ['Label', 'label'],
  ])('refuses a key that is a slip of a rule key (%s), which no rule would read', (slip, key) => {
    expect(() => createGate({ providers: scripted(['x']), postDecide: [onFailure({ [slip]: 5 } as Partial<ReliabilityRule>)] })).toThrow(
      `createGate: postDecide[0] is not a rule: its key "${slip}" is read by no rule (did you mean "${key}"?)`,
    )
  })

  it("takes keys of the rule's own that are no slip of a rule key", () => {
    const own = onFailure({ id: 'r1', owner: 'payments', description: 'x', priority: 2 } as Partial<ReliabilityRule>)
    expect(() => createGate({ providers: scripted(['x']), postDecide: [own], preCheck: [own] })).not.toThrow()
  })

  it('refuses a rule that is not an object, and a PreCheck list that is no array', () => {
    expect(() => createGate({ providers: scripted(['x']), preCheck: [null as unknown as ReliabilityRule] })).toThrow(
      'createGate: preCheck[0] is not a rule: expected a rule object, got null',
    )
    expect(() => createGate({ providers: scripted(['x']), preCheck: 'rule' as unknown as ReliabilityRule[] })).toThrow(
      'createGate: preCheck must be an array of rules',
    )
  })
})

describe('a rule that stops being a rule after creation', () => {
  /** A rule that passes the creation check and answers `then` only afterwards. */
  const shapeShifter = (then: unknown): ReliabilityRule => {
    let reads = 0
    return {
      when: () => true,
      get then() {
        return (reads++ === 0 ? 'retry' : then) as ReliabilityRule['then']
      },
      kind: 'shifty',
    }
  }

  it('fails the run with kind invalid-rule and reports rule_error where then', async () => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [shapeShifter('later')] })
    const errors: GateEventMap['rule_error'][] = []
    gate.on('rule_error', (e) => errors.push(e))
    await expect(gate.run(ask('x'))).rejects.toMatchObject({
      kind: 'invalid-rule',
      phase: 'post-decide',
      attempts: [{ decision: 'fail-fast', ruleKind: 'invalid-rule' }],
    })
    expect(errors).toEqual([{ runId: expect.any(String), attempt: 1, kind: 'shifty', where: 'then', error: expect.any(TypeError) }])
    expect(provider.calls).toBe(1)
  })

  it('fails a PreCheck rule that is no longer a rule before the provider is called', async () => {
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, preCheck: [shapeShifter(undefined)] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'invalid-rule', phase: 'pre-check' })
    expect(provider.calls).toBe(0)
  })
})

describe('rule delays', () => {
  it('honours a delay above 2^31 ms in full instead of firing after 1 ms', async () => {
    vi.useFakeTimers()
    const delayMs = 2 ** 40
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [onFailure({ delayMs })] })
    const run = gate.run(ask('x'))
    await vi.advanceTimersByTimeAsync(2 ** 31)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(delayMs - 2 ** 31 - 1)
    expect(provider.calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    await expect(run).resolves.toMatchObject({ attempts: [{ status: 'parse_error' }, { status: 'success' }] })
    expect(provider.calls).toBe(2)
  })

  it('aborts a long delay at once with the run signal', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const gate = createGate({ providers: scripted(['not json', validRefundJson]), outputSchema: Refund, postDecide: [onFailure({ delayMs: 2 ** 40 })] })
    const run = gate.run(ask('x'), { signal: controller.signal })
    run.catch(() => undefined)
    await vi.advanceTimersByTimeAsync(5_000)
    controller.abort()
    await expect(run).rejects.toMatchObject({ kind: 'aborted' })
    expect(vi.getTimerCount()).toBe(0)
  })

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['a function answering NaN', () => Number.NaN],
    ['a function answering a string', () => '100' as unknown as number],
  ])('reports a delay of %s as rule_error and retries without waiting', async (_name, delayMs) => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [onFailure({ delayMs })] })
    const errors: GateEventMap['rule_error'][] = []
    const retries: GateEventMap['retry'][] = []
    gate.on('rule_error', (e) => errors.push(e))
    gate.on('retry', (e) => retries.push(e))
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ attempts: [{ status: 'parse_error' }, { status: 'success' }] })
    expect(errors).toEqual([{ runId: expect.any(String), attempt: 1, kind: 'r', where: 'delayMs', error: expect.any(RangeError) }])
    expect(retries.map((r) => r.delayMs)).toEqual([0])
  })

  it('treats a negative delay as no wait, without an error', async () => {
    const gate = createGate({ providers: scripted(['not json', validRefundJson]), outputSchema: Refund, postDecide: [onFailure({ delayMs: -5 })] })
    const errors: unknown[] = []
    gate.on('rule_error', (e) => errors.push(e))
    await gate.run(ask('x'))
    expect(errors).toEqual([])
  })
})
