import { describe, expect, it } from 'vitest'
import { ATTEMPT_SLOT, freshSlot } from '../../src/policies/attempt-slot.ts'
import { compose } from '../../src/policies/compose.ts'
import { stageLink } from '../../src/policies/link.ts'
import type { AttemptContext, AttemptResult, Middleware } from '../../src/policies/middleware.ts'
import { answersBareResponse, bareResponseTerminal } from '../../src/policies/response-terminal.ts'
import type { Stage } from '../../src/policies/stage.ts'
import type { ModelResponse } from '../../src/index.ts'

const answer: ModelResponse = { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
const bare = bareResponseTerminal(async () => answer)

function context(withSlot: boolean): AttemptContext {
  const ctx: AttemptContext = {
    runId: 'r',
    attempt: 1,
    request: { messages: [{ role: 'user', content: 'hi' }] },
    baseRequest: { messages: [{ role: 'user', content: 'hi' }] },
    provider: 'p',
    providerIdx: 0,
    model: undefined,
    metadata: undefined,
    turn: undefined,
  }
  return withSlot ? ({ ...ctx, [ATTEMPT_SLOT]: freshSlot(undefined) } as AttemptContext) : ctx
}

/** A stage that records the result its `leave` saw. */
function seeing(seen: AttemptResult[], enters: boolean): Stage {
  return {
    name: enters ? 'entering' : 'leaving',
    ...(enters ? { enter: () => 'token' } : {}),
    leave: (_ctx, _token, result) => {
      seen.push(result)
      return result
    },
  }
}

describe('a provider call answering the bare response', () => {
  it('is marked, and a plain terminal is not', () => {
    expect(answersBareResponse(bare)).toBe(true)
    expect(answersBareResponse(async () => ({ response: answer }))).toBe(false)
  })

  it.each([
    ['only leave', false],
    ['enter and leave', true],
  ])('reaches the stages (that %s) just outside it as `{ response }`, with or without the gate’s slot', async (_name, enters) => {
    for (const withSlot of [true, false]) {
      const seen: AttemptResult[] = []
      const chain = compose([stageLink(seeing(seen, enters)), stageLink(seeing(seen, enters))])
      const result = await chain(context(withSlot), bare)
      expect(result).toEqual({ response: answer })
      expect(seen).toEqual([{ response: answer }, { response: answer }])
    }
  })

  it('is wrapped for a user’s middleware just outside it, and for a chain of no links', async () => {
    let nextGave: unknown
    const user: Middleware = async (_ctx, next) => {
      nextGave = await next()
      return nextGave as AttemptResult
    }
    const seen: AttemptResult[] = []
    expect(await compose([stageLink(seeing(seen, false)), user])(context(true), bare)).toEqual({ response: answer })
    expect(nextGave).toEqual({ response: answer })
    expect(seen).toEqual([{ response: answer }])
    expect(await compose([])(context(true), bare)).toEqual({ response: answer })
  })

  it('fails the attempt as it is when the call rejects or throws synchronously', async () => {
    const boom = new Error('provider down')
    const rejecting = bareResponseTerminal(() => Promise.reject(boom))
    const throwing = bareResponseTerminal(() => {
      throw boom
    })
    for (const terminal of [rejecting, throwing]) {
      for (const enters of [false, true]) {
        const seen: AttemptResult[] = []
        await expect(compose([stageLink(seeing(seen, enters))])(context(true), terminal)).rejects.toBe(boom)
        expect(seen).toEqual([])
      }
    }
  })
})
