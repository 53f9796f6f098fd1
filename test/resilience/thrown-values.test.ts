import { describe, expect, it } from 'vitest'
import { classifyError, createGate, isProviderError, isReliabilityFailFastError, retryTransient, type GateEventMap } from '../../src/index.ts'
import { errorName, messageOf } from '../../src/model/message-of.ts'
import type { Provider } from '../../src/model/provider.ts'
import { scripted } from '../../src/providers/index.ts'
import { bareObject, errorWithThrowingGetters, hostileProxy, THROWN_VALUES } from '../support/hostile-values.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

/** A provider whose call throws `value` (synchronously when `sync`). */
const throwing = (value: unknown, sync = false): Provider => ({
  name: 'thrower',
  complete: sync
    ? () => {
        throw value
      }
    : () => Promise.reject(value),
})

describe('messageOf', () => {
  it.each(THROWN_VALUES)('reads %s without throwing', (_name, make, message) => {
    const read = messageOf(make())
    if (typeof message === 'string') expect(read).toBe(message)
    else expect(read).toMatch(message)
  })
})

describe('errorName', () => {
  it('names an Error by its name and anything else undefined', () => {
    expect(errorName(new TypeError('x'))).toBe('TypeError')
    expect(errorName({ name: 'NotAnError' })).toBeUndefined()
    expect(errorName('TypeError')).toBeUndefined()
  })

  it('never throws on values that cannot be read', () => {
    expect(errorName(hostileProxy())).toBeUndefined()
    expect(errorName(errorWithThrowingGetters())).toBe('Error')
    expect(errorName(bareObject())).toBeUndefined()
  })
})

describe('classifyError on hostile values', () => {
  it.each(THROWN_VALUES)('classifies %s as unknown without throwing', (_name, make) => {
    expect(classifyError(make())).toEqual({ kind: 'unknown', status: undefined, retryAfterMs: undefined })
  })

  it('does not trust a branded look-alike with an unknown kind or a broken retry-after', () => {
    const forged = { [Symbol.for('reliability-gate.ProviderError')]: true, kind: 'made-up', status: Number.NaN, retryAfterMs: -5 }
    expect(isProviderError(forged)).toBe(true)
    expect(classifyError(forged)).toEqual({ kind: 'unknown', status: undefined, retryAfterMs: undefined })
  })
})

describe('gate error handling on hostile thrown values', () => {
  it.each(THROWN_VALUES)('fails a run whose provider rejects with %s as a typed unknown failure', async (_name, make, message) => {
    const gate = createGate({ providers: throwing(make()) })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'unknown', phase: 'post-decide', attempts: [{ status: 'error', errorKind: 'unknown' }] })
    const line = (error as { attempts: { errors: string[] }[] }).attempts[0]?.errors[0]
    if (typeof message === 'string') expect(line).toBe(message)
    else expect(line).toMatch(message)
  })

  it.each(THROWN_VALUES)('fails a run whose provider throws %s synchronously the same way', async (_name, make) => {
    const gate = createGate({ providers: throwing(make(), true), outputSchema: Refund })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind: 'unknown', phase: 'post-decide' })
  })

  it('hands the hostile value to listeners and rules as it was thrown', async () => {
    const proxy = hostileProxy()
    const gate = createGate({ providers: throwing(proxy) })
    const ends: GateEventMap['attempt_end'][] = []
    gate.on('attempt_end', (e) => ends.push(e))
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect((error as { attempts: { error: unknown }[] }).attempts[0]?.error).toBe(proxy)
    expect(ends.map((e) => e.errorKind)).toEqual(['unknown'])
  })

  it('retries after a hostile throw when a rule says so and recovers', async () => {
    const provider = scripted([() => Promise.reject(hostileProxy()), validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [{ when: (s) => s.errorKind === 'unknown', then: 'retry', kind: 'retry-unknown' }, retryTransient()],
    })
    const result = await gate.run(ask('x'))
    expect(result.attempts.map((a) => a.status)).toEqual(['error', 'success'])
  })
})
