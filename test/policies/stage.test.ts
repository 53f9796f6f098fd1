import { describe, expect, it } from 'vitest'
import type { AttemptContext, AttemptResult, ModelResponse } from '../../src/index.ts'
import type { ChainAttempt } from '../../src/policies/chain-attempt.ts'
import type { Stage } from '../../src/policies/stage.ts'
import { type TestTerminal, throughChain } from '../support/chain-attempt.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'

const response: ModelResponse = { content: 'ok', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }
const ctx = (): AttemptContext => ({
  runId: 'r',
  attempt: 1,
  request: { messages: [] },
  baseRequest: { messages: [] },
  provider: 'p',
  providerIdx: 0,
  model: undefined,
  metadata: undefined,
  turn: undefined,
})
const never = <T>(): Promise<T> => new Promise<T>(() => {})

/** A stage that writes what happens to it in `log`; `overrides` replace its halves. */
function logged(name: string, log: string[], overrides: Partial<Stage<string>> = {}): Stage<string> {
  return {
    name,
    enter: () => {
      log.push(`enter ${name}`)
      return `${name}-token`
    },
    undo: (_c, token) => void log.push(`undo ${name} ${token}`),
    leave: (_c, token, result) => {
      log.push(`leave ${name} ${token}`)
      return result
    },
    fail: (_c, token, error) => void log.push(`fail ${name} ${token} ${(error as Error).message}`),
    ...overrides,
  }
}

/** The stages as one chain, outermost first. */
const chainOf =
  (...stages: (Stage<string> | Stage<undefined> | Stage<undefined, ChainAttempt>)[]) =>
  (c: AttemptContext, terminal: TestTerminal) =>
    throughChain(stages as Stage[], [], c, terminal)

expectNoUnhandledRejections()

describe('the chain of stages', () => {
  it('enters in order, calls the rest once, and leaves in reverse order with each token', async () => {
    const log: string[] = []
    const chain = chainOf(logged('a', log), logged('b', log))
    const result = await chain(ctx(), () => {
      log.push('provider')
      return Promise.resolve({ response })
    })
    expect(result).toEqual({ response })
    expect(log).toEqual(['enter a', 'enter b', 'provider', 'leave b b-token', 'leave a a-token'])
  })

  it('fails the attempt when an enter throws: the stages entered hear fail, the rest never runs', async () => {
    const log: string[] = []
    const boom = logged('b', log, {
      enter: () => {
        throw new Error('refused')
      },
    })
    const chain = chainOf(logged('a', log), boom, logged('c', log))
    let called = false
    await expect(
      chain(ctx(), () => {
        called = true
        return Promise.resolve({ response })
      }),
    ).rejects.toThrow('refused')
    expect(called).toBe(false)
    expect(log).toEqual(['enter a', 'fail a a-token refused'])
  })

  it('turns a leave that throws into the fails of the stages outside it, and awaits an async fail', async () => {
    const log: string[] = []
    const slowFail = logged('a', log, {
      fail: async (_c, token, error) => {
        await new Promise((resolve) => setTimeout(resolve, 5))
        log.push(`fail a ${token} ${(error as Error).message} (late)`)
      },
    })
    const throwing = logged('b', log, {
      leave: () => {
        throw new Error('cannot charge')
      },
    })
    const chain = chainOf(slowFail, throwing)
    await expect(chain(ctx(), () => Promise.resolve({ response }))).rejects.toThrow('cannot charge')
    expect(log).toEqual(['enter a', 'enter b', 'fail a a-token cannot charge (late)'])
  })

  it('stops at once: the open stages hear the reason, a late answer is dropped, a late enter gives its token back', async () => {
    const log: string[] = []
    let stop: ((reason: unknown) => void) | undefined
    const stopper: Stage<undefined> = {
      name: 'stopper',
      stops: true,
      enter: (attempt: ChainAttempt) => {
        stop = (reason) => attempt.stop(reason)
        return undefined
      },
    }
    let release: ((token: string) => void) | undefined
    const slowEnter = logged('slow', log, { enter: () => new Promise<string>((resolve) => (release = resolve)) })
    const chain = chainOf(stopper, logged('a', log), slowEnter)
    const pending = chain(ctx(), () => never<AttemptResult>()).catch((e: unknown) => e)
    await Promise.resolve()
    stop?.(new Error('deadline'))
    expect(await pending).toMatchObject({ message: 'deadline' })
    release?.('slow-token')
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(log).toEqual(['enter a', 'fail a a-token deadline', 'undo slow slow-token'])
  })

  it('stops while the rest is pending: the stages hear fail once, and the answer that comes later is never left through', async () => {
    const log: string[] = []
    let stop: ((reason: unknown) => void) | undefined
    const stopper: Stage<undefined, ChainAttempt> = { name: 'stopper', stops: true, enter: (attempt) => void (stop = (r) => attempt.stop(r)) }
    let answer: ((r: AttemptResult) => void) | undefined
    const chain = chainOf(stopper, logged('a', log))
    const pending = chain(ctx(), () => new Promise<AttemptResult>((resolve) => (answer = resolve))).catch((e: unknown) => e)
    await Promise.resolve()
    stop?.(new Error('deadline'))
    stop?.(new Error('again'))
    expect(await pending).toMatchObject({ message: 'deadline' })
    answer?.({ response })
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(log).toEqual(['enter a', 'fail a a-token deadline'])
  })

  it('settles a stopping run with the answer or the failure, whether its enters answer at once or later', async () => {
    const stopper: Stage<undefined> = { name: 'stopper', stops: true, enter: () => undefined }
    for (const late of [false, true]) {
      const log: string[] = []
      const maybeLate = logged('b', log, { enter: () => (late ? Promise.resolve('b-token') : 'b-token') })
      const chain = chainOf(stopper, logged('a', log), maybeLate)
      await expect(chain(ctx(), () => Promise.resolve({ response }))).resolves.toEqual({ response })
      await expect(chain(ctx(), () => Promise.reject(new Error('provider down')))).rejects.toThrow('provider down')
      expect(log).toEqual(['enter a', 'leave b b-token', 'leave a a-token', 'enter a', 'fail b b-token provider down', 'fail a a-token provider down'])
    }
  })
})
