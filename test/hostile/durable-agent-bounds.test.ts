import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import type { DurablePort } from '../../src/durable.ts'
import { memoryDurablePort } from '../../src/durable.ts'
import { Agent, isReliabilityFailFastError, memorySessionStore, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, turn } from '../agent/tool-fixtures.ts'

const never = <T>(): Promise<T> => new Promise<T>(() => {})
const outcome = (run: Promise<unknown>): Promise<unknown> =>
  run.then(
    (v) => ({ resolved: v }),
    (e: unknown) => e,
  )
const kindOf = (error: unknown): unknown => (isReliabilityFailFastError(error) ? error.kind : error)

/** A memory port whose step named `stuck` (or matching it) never settles. */
function stuckAt(stuck: (name: string) => boolean): DurablePort {
  const inner = memoryDurablePort({ runId: 'stuck-run' })
  return { runId: 'stuck-run', step: (name, fn) => (stuck(name) ? never() : inner.step(name, fn)), sleep: (name, ms) => inner.sleep(name, ms) }
}

const lookup = tool({
  name: 'lookup',
  description: 'Looks an order up',
  input: Type.Object({ order: Type.String() }, { additionalProperties: false }),
  execute: ({ order }) => ({ order, status: 'shipped' }),
})

describe('Durable agent runs over a hostile port', () => {
  it('ends a run whose start step never settles within runTimeoutMs, as run-timeout', async () => {
    const agent = Agent.create({ provider: scripted(['Hi.']) }).build()
    const error = await outcome(agent.run('hi', { durable: stuckAt((n) => n === 'start'), runTimeoutMs: 40 }))
    expect(kindOf(error)).toBe('run-timeout')
  }, 3000)

  it('ends a run whose start step never settles when its signal aborts, as aborted', async () => {
    const agent = Agent.create({ provider: scripted(['Hi.']) }).build()
    const controller = new AbortController()
    const port = stuckAt((n) => {
      if (n === 'start') queueMicrotask(() => controller.abort(new Error('gave up')))
      return n === 'start'
    })
    const error = await outcome(agent.run('hi', { durable: port, runTimeoutMs: 60_000, signal: controller.signal }))
    expect(kindOf(error)).toBe('aborted')
  }, 3000)

  it('ends a run whose tool step never settles within runTimeoutMs, as run-timeout', async () => {
    const agent = Agent.create({ provider: scripted([turn(call('lookup', { order: 'A' }, 'c1')), 'Shipped.']) })
      .tool(lookup)
      .build()
    const error = await outcome(agent.run('where is A?', { durable: stuckAt((n) => n.startsWith('tool:')), runTimeoutMs: 40 }))
    expect(kindOf(error)).toBe('run-timeout')
  }, 3000)

  it('ends a stored run whose session-commit step never settles within runTimeoutMs, committing nothing', async () => {
    const store = memorySessionStore()
    const agent = Agent.create({ provider: scripted(['Hi.']), sessions: store }).build()
    const session = await agent.session('c-1')
    const error = await outcome(session.run('hi', { durable: stuckAt((n) => n.startsWith('session-')), runTimeoutMs: 40 }))
    expect(kindOf(error)).toBe('run-timeout')
    const reopened = await agent.session('c-1')
    expect(reopened.history).toEqual([])
  }, 3000)
})
