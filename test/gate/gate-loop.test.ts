import { describe, expect, it } from 'vitest'
import { createGate, defaultStuckLoopRule, isReliabilityFailFastError, ReliabilityFailFastError, strictOutputRules, type GateEvent } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { RETRY_THEN_OK_EVENTS } from '../support/event-order.ts'

describe('gate.run', () => {
  it('returns the first answer after one provider call when it is valid', async () => {
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.run(ask('refund #42'))
    expect(provider.calls).toBe(1)
    expect(result.value).toEqual(validRefund)
    expect(result.response.content).toBe(validRefundJson)
    expect(result.attempts).toHaveLength(1)
    expect(result.attempts[0]?.status).toBe('success')
  })

  it('returns the second answer after exactly two calls when the first does not parse', async () => {
    const provider = scripted(['this is not json {', validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.run(ask('refund #42'))
    expect(provider.calls).toBe(2)
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.status)).toEqual(['parse_error', 'success'])
    expect(result.attempts[0]?.decision).toBe('retry')
    expect(result.attempts[0]?.ruleKind).toBe('schema-retry')
  })

  it('throws ReliabilityFailFastError with every attempt when retries run out', async () => {
    const bad = (n: number) => `{"orderId": "42", "action": "refund", "amount": "USD ${n}"}`
    const provider = scripted([bad(1), bad(2), bad(3), validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReliabilityFailFastError)
    expect(isReliabilityFailFastError(error)).toBe(true)
    const e = error as ReliabilityFailFastError
    expect(e.kind).toBe('schema-retry-exhausted')
    expect(e.code).toBe('ERR_RELIABILITY_FAIL_FAST')
    expect(e.phase).toBe('post-decide')
    expect(e.attempts).toHaveLength(3)
    expect(e.lastAttempt?.rawOutput).toBe(bad(3))
    expect(e.usage.outputTokens).toBeGreaterThan(0)
    expect(provider.calls).toBe(3)
  })

  it('fails fast with the error kind when no rule matches a validation failure', async () => {
    const gate = createGate({ providers: scripted(['{"orderId": 1}']), outputSchema: Refund })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'schema-fail', phase: 'post-decide' })
  })

  it('does not validate a tool-call turn against the output schema', async () => {
    const provider = scripted([{ content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: {} }] }])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    const events: string[] = []
    gate.on('validation_failed', () => events.push('validation_failed'))
    const result = await gate.run(ask('x'))
    expect(result.response.toolCalls).toHaveLength(1)
    expect(result.value).toBeUndefined()
    expect(events).toEqual([])
  })

  it('fails with kind schema-stuck-loop after two calls when the model repeats the same mistake', async () => {
    const provider = scripted(Array.from({ length: 5 }, () => '{"orderId": 42}'))
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [defaultStuckLoopRule, ...strictOutputRules(5)] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'schema-stuck-loop' })
    expect(provider.calls).toBe(2)
  })

  it('returns plain text as the value when no output schema is set', async () => {
    const gate = createGate({ providers: scripted(['hello there']) })
    const result = await gate.run(ask('hi'))
    expect(result.value).toBe('hello there')
  })

  it('never exceeds the safety cap, whatever the rules decide', async () => {
    const provider = scripted(Array.from({ length: 20 }, () => 'nope'))
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      maxAttempts: 4,
      postDecide: [{ when: () => true, then: 'retry', kind: 'always-retry' }],
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'max-attempts' })
    expect(provider.calls).toBe(4)
  })

  it('classifies max_tokens with an unparseable answer as truncated', async () => {
    const provider = scripted([{ content: '{"orderId": "42", "act', stopReason: 'max_tokens' }])
    const gate = createGate({ providers: provider, outputSchema: Refund })
    const error = (await gate.run(ask('x')).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.kind).toBe('truncated')
    expect(error.attempts[0]?.status).toBe('truncated')
  })

  it('emits run_start, attempt_start, attempt_end, validation_failed, decision, retry, recovered and run_end in order', async () => {
    const gate = createGate({ providers: scripted(['{}', validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const seen: GateEvent['type'][] = []
    const sub = gate.events$.subscribe((e) => seen.push(e.type))
    await gate.run(ask('x'))
    sub.unsubscribe()
    expect(seen).toEqual(RETRY_THEN_OK_EVENTS)
  })
})
