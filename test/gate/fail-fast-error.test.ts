import { describe, expect, it } from 'vitest'
import { createGate, isReliabilityFailFastError, ProviderError, type ReliabilityFailFastError } from '../../src/index.ts'
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

  it('is recognised by its brand across realms and duplicate copies, and nothing else is', () => {
    const foreign = { [Symbol.for('reliability-gate.ReliabilityFailFastError')]: true, kind: 'x' }
    expect(isReliabilityFailFastError(foreign)).toBe(true)
    expect(isReliabilityFailFastError(new Error('plain'))).toBe(false)
    expect(isReliabilityFailFastError({ name: 'ReliabilityFailFastError', code: 'ERR_RELIABILITY_FAIL_FAST' })).toBe(false)
    expect(isReliabilityFailFastError(null)).toBe(false)
  })
})
