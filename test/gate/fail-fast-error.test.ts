import { describe, expect, it } from 'vitest'
import {
  Agent,
  createGate,
  defaultStuckLoopRule,
  isReliabilityFailFastError,
  isValidationFailure,
  ProviderError,
  ReliabilityFailFastError,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund } from '../support/schemas.ts'

describe('ReliabilityFailFastError', () => {
  it('carries kind, reason, phase, attempts, usage and the provider error as cause', async () => {
    const down = new ProviderError('bad gateway', { kind: 'http-5xx', status: 502 })
    const gate = createGate({
      providers: scripted([{ content: 'nope', usage: { inputTokens: 4, outputTokens: 2 } }, down]),
      outputSchema: Refund,
      postDecide: [{ when: (s) => s.validationError !== undefined, then: 'retry', kind: 'r' }],
    })
    const error = (await gate.run(ask('x')).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('ReliabilityFailFastError')
    expect(error).toMatchObject({ code: 'ERR_RELIABILITY_FAIL_FAST', kind: 'http-5xx', phase: 'post-decide' })
    expect(error.reason).toContain('bad gateway')
    expect(error.cause).toBe(down)
    expect(error.attempts.map((a) => a.status)).toEqual(['parse_error', 'http_error'])
    // The failed attempts' usage is on the error.
    expect(error.usage).toEqual({ inputTokens: 4, outputTokens: 2 })
  })

  it('carries the validation failure as cause when the run stops on a refused answer, from the gate and the agent', async () => {
    const stuck = () => scripted(['{"orderId": 42}', '{"orderId": 42}'])
    const fromGate = (await createGate({
      providers: stuck(),
      outputSchema: Refund,
      postDecide: [defaultStuckLoopRule, { when: (s) => s.validationError !== undefined, then: 'retry', kind: 'r' }],
    })
      .run(ask('x'))
      .catch((e: unknown) => e)) as ReliabilityFailFastError
    const fromAgent = (await Agent.create({ provider: stuck() })
      .outputSchema(Refund)
      .reliability({ postDecide: [defaultStuckLoopRule, { when: (s) => s.validationError !== undefined, then: 'retry', kind: 'r' }] })
      .build()
      .runTyped('x')
      .catch((e: unknown) => e)) as ReliabilityFailFastError
    for (const error of [fromGate, fromAgent]) {
      expect(error.kind).toBe('schema-stuck-loop')
      expect(isValidationFailure(error.cause)).toBe(true)
      expect(error.cause).toBe(error.validationError)
      expect(error.cause).toMatchObject({ name: 'ValidationFailure', stage: 'schema-validate', rawOutput: '{"orderId": 42}' })
    }
  })

  it('refuses, naming the field, details that cannot make one', () => {
    const make = (details: unknown) => () => new ReliabilityFailFastError(details as never)
    const usage = { inputTokens: 0, outputTokens: 0 }
    expect(make(undefined)).toThrow(new TypeError('ReliabilityFailFastError: expected { kind, reason, phase, attempts, usage, costUsd }, got undefined'))
    expect(make({ reason: 'r', phase: 'post-decide', attempts: [], usage, costUsd: 0 })).toThrow(
      'ReliabilityFailFastError: kind must be a string, got undefined',
    )
    expect(make({ kind: 'k', reason: 'r', phase: 'post-decide', attempts: null, usage, costUsd: 0 })).toThrow(
      'attempts must be an array of attempt records, got null',
    )
    expect(make({ kind: 'k', reason: 'r', phase: 'post-decide', attempts: [], usage, costUsd: 0 })()).toMatchObject({
      kind: 'k',
      message: '[reliability] k: r',
    })
  })

  it('is recognised by its brand across realms and duplicate copies, and nothing else is', () => {
    const foreign = { [Symbol.for('reliability-gate.ReliabilityFailFastError')]: true, kind: 'x' }
    expect(isReliabilityFailFastError(foreign)).toBe(true)
    expect(isReliabilityFailFastError(new Error('plain'))).toBe(false)
    expect(isReliabilityFailFastError({ name: 'ReliabilityFailFastError', code: 'ERR_RELIABILITY_FAIL_FAST' })).toBe(false)
    expect(isReliabilityFailFastError(null)).toBe(false)
  })
})
