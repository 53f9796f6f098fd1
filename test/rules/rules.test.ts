import { describe, expect, it } from 'vitest'
import {
  createGate,
  defaultStuckLoopRule,
  lastNValidationErrorsMatch,
  strictOutput,
  strictOutputRules,
  stuckLoopRule,
  type ReliabilityFailFastError,
  type ReliabilityRule,
  type ReliabilityScope,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { scopeOf } from '../support/scope-of.ts'
import { Type } from 'typebox'

const scope = (history: string[], failing = true, attempt = history.length): ReliabilityScope =>
  scopeOf({
    attempt,
    errorKind: failing ? 'schema-fail' : 'ok',
    validationError: failing ? { message: history.at(-1) ?? '', stage: 'schema-validate', issues: [] } : undefined,
    validationErrorHistory: history,
  })

describe('lastNValidationErrorsMatch', () => {
  it('is true when the last n messages are identical', () => {
    expect(lastNValidationErrorsMatch(scope(['a', 'b', 'b']))).toBe(true)
    expect(lastNValidationErrorsMatch(scope(['b', 'b', 'a']))).toBe(false)
    expect(lastNValidationErrorsMatch(scope(['b', 'b', 'b']), 3)).toBe(true)
    expect(lastNValidationErrorsMatch(scope(['a', 'b', 'b']), 3)).toBe(false)
  })

  it('is false with fewer than n messages', () => {
    expect(lastNValidationErrorsMatch(scope(['a']))).toBe(false)
    expect(lastNValidationErrorsMatch(scope([]), 1)).toBe(false)
  })

  it('refuses an n that is no integer of 1 or more with a RangeError, never answering true for NaN', () => {
    for (const n of [Number.NaN, 1.5, Number.POSITIVE_INFINITY, '2', 0, -1, -(2 ** 31), null]) {
      expect(() => lastNValidationErrorsMatch(scope(['a', 'b']), n as number)).toThrow(RangeError)
      expect(() => lastNValidationErrorsMatch(scope([]), n as number)).toThrow(/lastNValidationErrorsMatch: n must be an integer/)
    }
    expect(lastNValidationErrorsMatch(scope(['a', 'a']), 2 ** 31)).toBe(false)
  })

  it('refuses a value that is no scope with a TypeError naming it, never one from inside', () => {
    const notScopes: readonly [unknown, RegExp][] = [
      [null, /scope must be a reliability scope, got null/],
      [undefined, /scope must be a reliability scope, got undefined/],
      [2, /scope must be a reliability scope, got number/],
      [{}, /scope\.validationErrorHistory must be an array of messages, got undefined/],
      [{ validationErrorHistory: null }, /scope\.validationErrorHistory must be an array of messages, got null/],
    ]
    for (const [value, message] of notScopes) {
      expect(() => lastNValidationErrorsMatch(value as ReliabilityScope, 2)).toThrow(TypeError)
      expect(() => lastNValidationErrorsMatch(value as ReliabilityScope, 2)).toThrow(new RegExp(`^lastNValidationErrorsMatch: ${message.source}`))
      expect(() => defaultStuckLoopRule.when(value as ReliabilityScope)).toThrow(new RegExp(`^lastNValidationErrorsMatch: ${message.source}`))
    }
  })

  it('called on no scope inside a rule, is a rule_error and the rule does not match: the run goes on', async () => {
    const provider = scripted(['{"n": "one"}', '{"n": 1}'])
    const gate = createGate({
      providers: provider,
      outputSchema: Type.Object({ n: Type.Number() }),
      postDecide: [{ when: () => lastNValidationErrorsMatch(null as never), then: 'fail-fast', kind: 'never' }, ...strictOutputRules(3)],
    })
    const reported: string[] = []
    gate.on('rule_error', (e) => reported.push(`${e.where}: ${(e.error as Error).name}: ${(e.error as Error).message}`))
    const result = await gate.run({ messages: [{ role: 'user', content: 'n?' }] })
    expect(result.value).toEqual({ n: 1 })
    expect(reported).toEqual(Array(2).fill('when: TypeError: lastNValidationErrorsMatch: scope must be a reliability scope, got null'))
  })
})

describe('defaultStuckLoopRule', () => {
  it('fails fast with kind schema-stuck-loop on two identical failures', () => {
    expect(defaultStuckLoopRule.then).toBe('fail-fast')
    expect(defaultStuckLoopRule.kind).toBe('schema-stuck-loop')
    expect(defaultStuckLoopRule.when(scope(['x', 'x']))).toBe(true)
  })

  it('does not match a valid answer that follows repeated failures', () => {
    expect(defaultStuckLoopRule.when(scope(['x', 'x'], false))).toBe(false)
  })

  it('shows its name in stack traces', () => {
    expect(stuckLoopRule(3).when.name).toBe('stuckLoop')
  })
})

describe('strictOutputRules', () => {
  it('orders stuck-loop, retry, exhausted', () => {
    expect(strictOutputRules(3).map((r) => r.kind)).toEqual(['schema-stuck-loop', 'schema-retry', 'schema-retry-exhausted'])
  })

  it('retries while fewer than n attempts were made', () => {
    const [, retry, exhausted] = strictOutputRules(3)
    // scope.attempt counts the attempts made so far: 1 after the first call.
    expect(retry?.when(scope(['a'], true, 1))).toBe(true)
    expect(retry?.when(scope(['a', 'b'], true, 2))).toBe(true)
    expect(retry?.when(scope(['a', 'b', 'c'], true, 3))).toBe(false)
    expect(exhausted?.when(scope(['a', 'b', 'c'], true, 3))).toBe(true)
    expect(exhausted?.when(scope([], false, 0))).toBe(false)
  })

  it('rejects a non-positive count', () => {
    expect(() => strictOutputRules(0)).toThrow(RangeError)
  })
})

describe('strictOutputRules stuck detection', () => {
  const Answer = Type.Object({ n: Type.Number() })
  const same = '{"n": "one"}'
  const run = async (postDecide: readonly ReliabilityRule[]): Promise<{ kind: string; calls: number }> => {
    const provider = scripted([same, same, same, same, same])
    const error = (await createGate({ providers: provider, outputSchema: Answer, postDecide })
      .run({ messages: [] })
      .catch((e: unknown) => e)) as ReliabilityFailFastError
    return { kind: error.kind, calls: provider.calls }
  }

  it('stops at the stuckAfter-th identical failure', async () => {
    expect(await run(strictOutputRules(5, { stuckAfter: 3 }))).toEqual({ kind: 'schema-stuck-loop', calls: 3 })
  })

  it('stops at 2 identical failures by default', async () => {
    expect(await run(strictOutputRules(5))).toEqual({ kind: 'schema-stuck-loop', calls: 2 })
  })

  it('leaves stuck detection to the caller with stuckAfter: false', async () => {
    expect(await run([stuckLoopRule(3), ...strictOutputRules(5, { stuckAfter: false })])).toEqual({ kind: 'schema-stuck-loop', calls: 3 })
    expect(await run(strictOutputRules(4, { stuckAfter: false }))).toEqual({ kind: 'schema-retry-exhausted', calls: 4 })
  })

  it('tells failures apart by their whole issue set, beyond the issues the feedback and the summary show', async () => {
    // 30 numeric fields: every answer gets f1..f25 wrong plus one of f26..f30, so all have 26 issues,
    // the same first 25, and differ only past the 20 the feedback lists and the few the summary names.
    const fields = Array.from({ length: 30 }, (_, i) => `f${i + 1}`)
    const Wide = Type.Object(Object.fromEntries(fields.map((f) => [f, Type.Number()])))
    const answer = (alsoWrong: number) => JSON.stringify(Object.fromEntries(fields.map((f, i) => [f, i < 25 || i + 1 === alsoWrong ? 'x' : 1])))
    const gate = (answers: string[]) => {
      const provider = scripted(answers)
      const run = createGate({ providers: provider, outputSchema: Wide, postDecide: strictOutputRules(5) })
        .run({ messages: [] })
        .catch((e: unknown) => e) as Promise<ReliabilityFailFastError>
      return { provider, run }
    }
    const differing = gate([answer(26), answer(27), answer(28), answer(29), answer(30)])
    const failed = await differing.run
    expect(failed.kind).toBe('schema-retry-exhausted')
    expect(differing.provider.calls).toBe(5)
    expect(failed.attempts.map((a) => a.issues.length)).toEqual([26, 26, 26, 26, 26])
    // What the model was told and the summary are the same for all five: only the full issue set differs.
    expect(new Set(failed.attempts.slice(0, 4).map((a) => a.feedbackSent)).size).toBe(1)
    const repeated = gate([answer(26), answer(27), answer(27), answer(28)])
    expect((await repeated.run).kind).toBe('schema-stuck-loop')
    expect(repeated.provider.calls).toBe(3)
  })

  it('rejects a stuckAfter below 2', () => {
    expect(() => strictOutputRules(3, { stuckAfter: 1 })).toThrow(RangeError)
  })

  it('gives strictOutput() the same option, off by default as in pyconveyor', async () => {
    expect(await run(strictOutput({ maxAttempts: 4 }).postDecide ?? [])).toEqual({ kind: 'schema-retry-exhausted', calls: 4 })
    expect(await run(strictOutput({ maxAttempts: 4, stuckAfter: 2 }).postDecide ?? [])).toEqual({ kind: 'schema-stuck-loop', calls: 2 })
  })
})
