import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import type { DurablePort } from '../../src/durable.ts'
import { memoryDurablePort } from '../../src/durable.ts'
import { createGate, isReliabilityFailFastError, ProviderError, retryTransient } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const Amount = Type.Object({ amount: Type.Integer() }, { additionalProperties: false })
const ask = { messages: [{ role: 'user' as const, content: 'how much?' }] }
const never = <T>(): Promise<T> => new Promise<T>(() => {})

/** A port of the user's own (no `durablePort` around it), its step and sleep given. */
function userPort(step: DurablePort['step'], sleep: DurablePort['sleep'] = async () => {}): DurablePort {
  return { runId: 'user-run', step, sleep }
}

function gateOver(answers: (string | ProviderError)[], runTimeoutMs?: number) {
  return createGate({
    providers: scripted(answers),
    outputSchema: Amount,
    postDecide: [retryTransient({ maxRetries: 3, backoff: { initialMs: 10, maxMs: 10, jitter: 0 } })],
    ...(runTimeoutMs === undefined ? {} : { runTimeoutMs }),
  })
}

const outcome = (run: Promise<unknown>): Promise<unknown> =>
  run.then(
    (v) => ({ resolved: v }),
    (e: unknown) => e,
  )

describe('Durable gate runs over a hostile port', () => {
  it('ends a run whose start step never settles within runTimeoutMs, as run-timeout', async () => {
    const gate = gateOver(['{"amount": 1}'], 40)
    const error = await outcome(gate.run(ask, { durable: userPort(() => never()) }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('run-timeout')
  }, 3000)

  it('ends a run whose start step never settles when its signal aborts, as aborted', async () => {
    const gate = gateOver(['{"amount": 1}'], 60_000)
    const controller = new AbortController()
    const port = userPort(() => {
      queueMicrotask(() => controller.abort(new Error('user gave up')))
      return never()
    })
    const error = await outcome(gate.run(ask, { durable: port, signal: controller.signal }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('aborted')
  }, 3000)

  it('ends a run whose attempt step never settles within runTimeoutMs, as run-timeout', async () => {
    const gate = gateOver(['{"amount": 1}'], 40)
    const port = userPort((name, fn) => (name.startsWith('start:') ? Promise.resolve(fn()) : never()) as never)
    const error = await outcome(gate.run(ask, { durable: port }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('run-timeout')
  }, 3000)

  it('ends a run whose attempt step never settles when its signal aborts, as aborted', async () => {
    const gate = gateOver(['{"amount": 1}'])
    const controller = new AbortController()
    const port = userPort(() => {
      queueMicrotask(() => controller.abort(new Error('user gave up')))
      return never()
    })
    const error = await outcome(gate.run(ask, { durable: port, signal: controller.signal }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('aborted')
  }, 3000)

  it('ends a run whose durable sleep never resolves during a backoff wait within runTimeoutMs', async () => {
    const gate = gateOver([new ProviderError('overloaded', { kind: 'http-5xx', status: 503 }), '{"amount": 1}'], 60)
    const inner = memoryDurablePort({ runId: 'sleepy' })
    const port: DurablePort = { runId: 'sleepy', step: (n, fn) => inner.step(n, fn), sleep: () => never() }
    const error = await outcome(gate.run(ask, { durable: port }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('run-timeout')
  }, 3000)

  it('fails fast, typed, on a step that throws synchronously', async () => {
    const gate = gateOver(['{"amount": 1}'])
    const port = userPort(() => {
      throw new Error('engine exploded')
    })
    const error = await outcome(gate.run(ask, { durable: port }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('durable-journal')
  }, 3000)

  it('fails fast, typed, on a step that answers a non-promise that is no journaled attempt', async () => {
    const gate = gateOver(['{"amount": 1}'])
    const port = userPort(() => 42 as never)
    const error = await outcome(gate.run(ask, { durable: port }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('durable-journal')
  }, 3000)

  it('fails fast, typed, on a step that answers a thenable whose then throws', async () => {
    const gate = gateOver(['{"amount": 1}'])
    const thenable = {
      then() {
        throw new Error('then exploded')
      },
    }
    const port = userPort(() => thenable as never)
    const error = await outcome(gate.run(ask, { durable: port }))
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as { kind: string }).kind).toBe('durable-journal')
  }, 3000)

  it('refuses, typed, a port whose runId is empty, not a string or holds a newline-only id', async () => {
    const gate = gateOver(['{"amount": 1}'])
    for (const runId of ['', 42, undefined]) {
      const port = { runId, step: async () => 1, sleep: async () => {} } as unknown as DurablePort
      const error = await outcome(Promise.resolve().then(() => gate.run(ask, { durable: port })))
      expect(error).toBeInstanceOf(TypeError)
    }
    expect(() => createGate({ providers: scripted(['x']), durable: { runId: '', step: async () => 1, sleep: async () => {} } as never })).toThrow(TypeError)
  })

  it('keeps a journaled start in the future to the full runTimeoutMs (clamped, never a 2^31 ms timer)', async () => {
    const journal = [JSON.stringify({ v: 1, seq: 0, name: 'start:gate', ok: true, value: Date.now() + 2 ** 40 })]
    const gate = gateOver(['{"amount": 7}'], 1000)
    const result = await gate.run(ask, { durable: memoryDurablePort({ runId: 'future', journal }) })
    expect(result.value).toEqual({ amount: 7 })
  })

  it('refuses a journaled start that is no clock reading (NaN text, a string) as durable-journal', async () => {
    for (const value of ['"soon"', 'null', '1e400']) {
      const journal = [`{"v":1,"seq":0,"name":"start:gate","ok":true,"value":${value}}`]
      const gate = gateOver(['{"amount": 7}'], 1000)
      const error = await outcome(gate.run(ask, { durable: memoryDurablePort({ runId: 'bad-start', journal }) }))
      expect(isReliabilityFailFastError(error), value).toBe(true)
      expect((error as { kind: string }).kind).toBe('durable-journal')
    }
  })
})
