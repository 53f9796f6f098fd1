import { describe, expect, it, vi } from 'vitest'
import { createGate, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { hostileProxy } from '../support/hostile-values.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { recordEvents } from './support.ts'

const gateOn = (outputs: readonly string[] = [validRefundJson]) =>
  createGate({ providers: scripted(outputs), outputSchema: Refund, postDecide: strictOutputRules(3) })

describe('hostile listeners', () => {
  it.each([
    ['an Error', () => new Error('listener bug')],
    ['a hostile Proxy', hostileProxy],
    ['null', () => null],
  ])('never break the run when a listener throws %s: it is reported as listener_error', async (_name, make) => {
    const gate = gateOn()
    const thrown = make()
    gate.on('attempt_start', () => {
      throw thrown
    })
    const { events } = recordEvents(gate)
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: validRefund })
    expect(events.listener_error.map((e) => [e.event, typeof e.runId])).toEqual([['attempt_start', 'string']])
    // Compared by identity: any matcher reading a hostile Proxy would trip its traps.
    expect(events.listener_error[0]?.error === thrown).toBe(true)
  })

  it('does not recurse when a listener_error listener throws too', async () => {
    const gate = gateOn()
    const second = vi.fn()
    gate.on('attempt_start', () => {
      throw new Error('first')
    })
    gate.on('listener_error', () => {
      throw new Error('second')
    })
    gate.on('listener_error', second)
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: validRefund })
    expect(second).toHaveBeenCalledTimes(1)
  })

  it('still decides and retries when a validation_failed listener throws', async () => {
    const gate = gateOn(['not json', validRefundJson])
    gate.on('validation_failed', () => {
      throw new Error('metrics down')
    })
    const result = await gate.run(ask('x'))
    expect(result.attempts.map((a) => a.status)).toEqual(['parse_error', 'success'])
  })

  it('keeps calling the other listeners when one unsubscribes itself during an emit', async () => {
    const gate = gateOn(['not json', validRefundJson])
    const other = vi.fn()
    const off = gate.on('attempt_start', () => off())
    gate.on('attempt_start', other)
    await gate.run(ask('x'))
    expect(other).toHaveBeenCalledTimes(2)
  })

  it('calls a listener added during an emit from the next emit on', async () => {
    const gate = gateOn(['not json', validRefundJson])
    const late = vi.fn()
    let added = false
    gate.on('attempt_start', () => {
      if (!added) gate.on('attempt_start', late)
      added = true
    })
    await gate.run(ask('x'))
    expect(late.mock.calls.map(([e]) => (e as { attempt: number }).attempt)).toEqual([2])
  })

  it('ends the run with kind aborted when a listener aborts the run signal', async () => {
    const controller = new AbortController()
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
    gate.on('validation_failed', () => controller.abort())
    await expect(gate.run(ask('x'), { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(1)
  })

  it('lets a listener that reads every payload field see no NaN cost', async () => {
    const gate = createGate({
      providers: scripted([{ content: validRefundJson, usage: { inputTokens: Number.NaN, outputTokens: 3 } }]),
      model: 'm',
      pricing: { m: { input: 1, output: 1 } },
      outputSchema: Refund,
    })
    const { events } = recordEvents(gate)
    await gate.run(ask('x'))
    expect(events.cost_tick.map((e) => Number.isFinite(e.attemptCostUsd) && Number.isFinite(e.cumulativeCostUsd))).toEqual([true])
  })
})
