import { describe, expect, it } from 'vitest'
import { compileChain } from '../../src/policies/chain.ts'
import type { ResponseCall } from '../../src/policies/chain-attempt.ts'
import type { AttemptContext, AttemptResult, Middleware } from '../../src/policies/middleware.ts'
import type { Stage } from '../../src/policies/stage.ts'
import type { ModelResponse } from '../../src/index.ts'
import { TestAttempt, throughAttempt } from '../support/chain-attempt.ts'

const answer: ModelResponse = { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
const later: ResponseCall = async () => answer
const atOnce: ResponseCall = () => answer

function attempt(signal?: AbortSignal): TestAttempt {
  const ctx: AttemptContext = {
    runId: 'r',
    attempt: 1,
    request: { messages: [{ role: 'user', content: 'hi' }], ...(signal !== undefined ? { signal } : {}) },
    baseRequest: { messages: [{ role: 'user', content: 'hi' }] },
    provider: 'p',
    providerIdx: 0,
    model: undefined,
    metadata: undefined,
    turn: undefined,
  }
  return new TestAttempt(ctx)
}

/** A stage that records the response its `leave` saw. */
function seeing(seen: unknown[], enters: boolean): Stage {
  return {
    name: enters ? 'entering' : 'leaving',
    ...(enters ? { enter: () => 'token' } : {}),
    leave: (_attempt, _token, response) => {
      seen.push(response)
      return response
    },
  }
}

describe('the provider call at the end of the chain', () => {
  it.each([
    ['only leave', false],
    ['enter and leave', true],
  ])('hands the stages (that %s) just outside it the bare response', async (_name, enters) => {
    const seen: unknown[] = []
    const chain = compileChain([seeing(seen, enters), seeing(seen, enters)], [])
    expect(await throughAttempt(attempt(), chain, later)).toBe(answer)
    expect(seen).toEqual([answer, answer])
  })

  it('is wrapped as `{ response }` for a user’s middleware just outside it, and a chain of no links answers the response itself', async () => {
    let nextGave: unknown
    const user: Middleware = async (_ctx, next) => {
      nextGave = await next()
      return nextGave as AttemptResult
    }
    const seen: unknown[] = []
    expect(await throughAttempt(attempt(), compileChain([seeing(seen, false)], [user]), later)).toBe(answer)
    expect(nextGave).toEqual({ response: answer })
    expect(seen).toEqual([answer])
    expect(await throughAttempt(attempt(), compileChain([], []), later)).toBe(answer)
  })

  it('takes a synchronous answer through the stages synchronously when nothing waits (no run signal, no stage that stops)', async () => {
    const seen: unknown[] = []
    const plain = attempt()
    const out = compileChain([seeing(seen, true), seeing(seen, false)], [])(plain, atOnce)
    expect(out).toBe(answer)
    expect(plain.leave(out)).toBe(answer)
    expect(seen).toEqual([answer, answer])
    // With a run signal the attempt may be stopped from outside: it answers a promise of its own.
    const signalled = compileChain([seeing(seen, false)], [])(attempt(new AbortController().signal), atOnce)
    expect(signalled).toBeInstanceOf(Promise)
    await expect(signalled).resolves.toBe(answer)
  })

  it('enters nothing and calls nothing for an attempt whose run was aborted before it started', async () => {
    const controller = new AbortController()
    controller.abort(new Error('gone'))
    const entered: string[] = []
    let calls = 0
    const stage: Stage = { name: 'policy', enter: () => void entered.push('policy') }
    const out = throughAttempt(attempt(controller.signal), compileChain([stage], []), () => {
      calls++
      return answer
    })
    await expect(out).rejects.toMatchObject({ kind: 'aborted' })
    expect(entered).toEqual([])
    expect(calls).toBe(0)
  })

  it('fails the attempt as it is when the call rejects or throws synchronously', async () => {
    const boom = new Error('provider down')
    const rejecting: ResponseCall = () => Promise.reject(boom)
    const throwing: ResponseCall = () => {
      throw boom
    }
    for (const call of [rejecting, throwing]) {
      for (const enters of [false, true]) {
        const seen: unknown[] = []
        await expect(throughAttempt(attempt(), compileChain([seeing(seen, enters)], []), call)).rejects.toBe(boom)
        expect(seen).toEqual([])
      }
    }
  })
})
