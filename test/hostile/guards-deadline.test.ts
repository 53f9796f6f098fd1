import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, isReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

// A guard that never settles, with the longest timeout a guard may have: only the run can end it.
const hangs = (surface: 'input' | 'history') =>
  contentGuard('hangs', () => new Promise<never>(() => undefined), { surfaces: [surface], timeoutMs: 2 ** 31 - 1 })

async function failureOf(run: Promise<unknown>): Promise<{ kind: string; reason: string }> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isReliabilityFailFastError(error)) throw new Error(`expected a fail-fast error, got ${String(error)}`)
  return { kind: error.kind, reason: error.reason }
}

describe('Agent input guards cut short by the run', () => {
  it('end the run run-timeout, as every other surface does, when its runTimeoutMs passes while an input guard hangs', async () => {
    const provider = scripted(['never sent'])
    const agent = Agent.create({ provider, model: 'm', contentGuards: [hangs('input')] }).build()
    const failure = await failureOf(agent.run('hi', { runTimeoutMs: 30 }))
    expect(failure.kind).toBe('run-timeout')
    expect(failure.reason).toMatch(/runTimeoutMs/)
    expect(provider.requests).toHaveLength(0)
  })

  it('end the run aborted when its signal aborts while a history guard hangs', async () => {
    const provider = scripted(['first', 'never sent'])
    const agent = Agent.create({ provider, model: 'm', contentGuards: [hangs('history')] }).build()
    const session = await agent.session('s')
    const controller = new AbortController()
    // The first exchange has no history to screen; the second's history guard hangs until the abort.
    await session.run('hello')
    const second = session.run('again', { signal: controller.signal })
    controller.abort(new Error('user stop'))
    const failure = await failureOf(second)
    expect(failure.kind).toBe('aborted')
    expect(provider.requests).toHaveLength(1)
  })
})
