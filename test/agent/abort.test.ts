import { Type } from 'typebox'
import { getEventListeners } from 'node:events'
import { describe, expect, it, vi } from 'vitest'
import { Agent, createGate, guard, isReliabilityFailFastError, tool, type ToolGuard } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { abortThenHang } from '../support/abort-then-hang.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { call, turn } from './tool-fixtures.ts'

const Input = Type.Object({ q: Type.String() })
const never = (): Promise<never> => new Promise(() => {})

/** Aborts `controller` once the microtask and timer queues have drained a little. */
const abortSoon = (controller: AbortController): void => void setTimeout(() => controller.abort(), 5)

describe('an aborted agent run', () => {
  it('settles with kind aborted while a tool whose execute ignores the signal never returns', async () => {
    const execute = vi.fn(never)
    const hung = tool({ name: 'hung', description: 'never answers', input: Input, execute })
    const provider = scripted([turn(call('hung', { q: 'x' })), 'never reached'])
    const agent = Agent.create({ provider }).tool(hung).build()
    const controller = new AbortController()
    abortSoon(controller)
    const error = await agent.run('go', { signal: controller.signal }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'aborted', phase: 'post-decide' })
    expect(execute).toHaveBeenCalledTimes(1)
    expect(provider.calls).toBe(1)
    expect(agent.history).toEqual([])
  })

  it('runs no later tool of the turn once the run is aborted', async () => {
    const controller = new AbortController()
    const first = vi.fn(async () => {
      controller.abort()
      return 'done'
    })
    const second = vi.fn(async () => 'never')
    const a = tool({ name: 'a', description: 'a', input: Input, execute: first })
    const b = tool({ name: 'b', description: 'b', input: Input, execute: second })
    const agent = Agent.create({ provider: scripted([turn(call('a', { q: '1' }, 'c1'), call('b', { q: '2' }, 'c2')), 'x']) })
      .tools([a, b])
      .build()
    await expect(agent.run('go', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(second).not.toHaveBeenCalled()
  })

  it('settles with kind aborted while a guard never answers', async () => {
    const pending: ToolGuard = guard('never-answers', () => never())
    const t = tool({ name: 't', description: 't', input: Input, execute: async () => 'ok', guards: [pending] })
    const agent = Agent.create({ provider: scripted([turn(call('t', { q: 'x' })), 'x']) })
      .tool(t)
      .build()
    const controller = new AbortController()
    abortSoon(controller)
    await expect(agent.run('go', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('settles with kind aborted while the output fallback never answers', async () => {
    const agent = Agent.create({ provider: scripted(['not json']) })
      .outputSchema(Refund)
      .outputFallback({ fallback: never, canned: { orderId: '0', action: 'reject', amount: 0 } })
      .build()
    const controller = new AbortController()
    abortSoon(controller)
    await expect(agent.runTyped('go', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('leaves no abort listener on a long-lived signal after many runs', async () => {
    const controller = new AbortController()
    const t = tool({ name: 't', description: 't', input: Input, execute: async () => 'ok' })
    const agent = Agent.create({ provider: scripted(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? turn(call('t', { q: 'x' })) : 'answer'))) })
      .tool(t)
      .build()
    for (let i = 0; i < 20; i++) await agent.run('go', { signal: controller.signal })
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('rejects an agent run aborted mid-call with kind aborted and leaves the history unchanged', async () => {
    const controller = new AbortController()
    const provider = scripted(['first', abortThenHang(controller), 'never'])
    const agent = Agent.create({ provider })
      .reliability({ postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'retry-any-error' }] })
      .build()
    await agent.run('one')
    const before = agent.history
    await expect(agent.run('two', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(2)
    expect(agent.history).toBe(before)
  })

  it('never counts an aborted agent run as a breaker failure', async () => {
    const controller = new AbortController()
    const provider = scripted([abortThenHang(controller), 'answer'])
    const agent = Agent.create({ provider })
      .reliability({ breaker: { failureThreshold: 1, cooldownMs: 60_000 } })
      .build()
    await expect(agent.run('one', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(await agent.run('two')).toBe('answer')
    expect(provider.calls).toBe(2)
  })
})

describe('an aborted gate run', () => {
  it('settles with kind aborted while an async feedbackForLLM never answers', async () => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'r', feedbackForLLM: never }],
    })
    const controller = new AbortController()
    abortSoon(controller)
    await expect(gate.run(ask('x'), { signal: controller.signal })).rejects.toMatchObject({
      kind: 'aborted',
      phase: 'post-decide',
      attempts: [{ decision: 'fail-fast', ruleKind: 'aborted' }],
    })
    expect(provider.calls).toBe(1)
  })

  it('settles with kind aborted while the fallback never answers', async () => {
    const gate = createGate({
      providers: scripted(['not json']),
      outputSchema: Refund,
      postDecide: [{ when: () => true, then: 'fallback', kind: 'f', failuresOnly: true }],
      fallback: never,
    })
    const controller = new AbortController()
    abortSoon(controller)
    await expect(gate.run(ask('x'), { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted', phase: 'post-decide' })
  })

  it('settles with kind aborted while an async schema never answers', async () => {
    const pending = { '~standard': { version: 1 as const, vendor: 'test', validate: never } }
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: pending })
    const controller = new AbortController()
    abortSoon(controller)
    await expect(gate.run(ask('x'), { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted', attempts: [{ status: 'aborted' }] })
  })
})

describe('an aborted agent run with an async tool schema', () => {
  it('settles with kind aborted while the tool input schema never answers', async () => {
    const pending = { '~standard': { version: 1 as const, vendor: 'test', validate: never } }
    const t = tool({ name: 't', description: 't', input: pending, execute: async () => 'ok' })
    const agent = Agent.create({ provider: scripted([turn(call('t', { q: 'x' })), 'x']) })
      .tool(t)
      .build()
    const controller = new AbortController()
    abortSoon(controller)
    await expect(agent.run('go', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
  })
})
