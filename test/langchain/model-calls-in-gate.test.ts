import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, createMiddleware, tool } from 'langchain'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import {
  isReliabilityFailFastError,
  memoryStore,
  type ReliabilityFailFastError,
  type ReliabilityRule,
  retryTransient,
  sharedBudget,
  sharedRateLimit,
} from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/langchain.ts'

/** A chat model that never answers: only a deadline can end its call. */
class SilentModel extends BaseChatModel {
  calls = 0
  _llmType(): string {
    return 'silent'
  }
  override bindTools(): this {
    return this
  }
  _generate(): Promise<ChatResult> {
    this.calls++
    return new Promise(() => {})
  }
}

const unavailable = () => Object.assign(new Error('Service Unavailable'), { status: 503 })
const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] })
/** The gate's error behind LangChain's `MiddlewareError`. */
const causeOf = (error: unknown): ReliabilityFailFastError | undefined => {
  const cause = (error as { cause?: unknown } | undefined)?.cause
  return isReliabilityFailFastError(cause) ? cause : undefined
}
const noDelay = { backoff: () => 0 }

function echoTool(ran: string[]) {
  return tool(
    async ({ text }: { text: string }) => {
      ran.push(text)
      return `echo ${text}`
    },
    { name: 'echo', description: 'Echoes its text', schema: z.object({ text: z.string() }) },
  )
}

describe('reliabilityMiddleware for LangChain: every model call inside the gate', () => {
  it('spends no model call when a PreCheck rule fails fast', async () => {
    const model = fakeModel().respond(new AIMessage('never asked'))
    const stop: ReliabilityRule = { when: () => true, then: 'fail-fast', kind: 'kill-switch' }
    const middleware = reliabilityMiddleware({ preCheck: [stop] })
    const agent = createAgent({ model, tools: [], middleware: [middleware] })
    const error = await agent.invoke(ask('hi')).catch((e: unknown) => e)
    expect(causeOf(error)).toMatchObject({ kind: 'kill-switch', phase: 'pre-check', attempts: [] })
    expect(model.calls).toHaveLength(0)
  })

  it('bounds the first model call by timeoutMs: a model that never answers ends in a typed timeout', async () => {
    const model = new SilentModel({})
    const agent = createAgent({ model, tools: [], middleware: [reliabilityMiddleware({ timeoutMs: 20 })] })
    const error = await agent.invoke(ask('hi')).catch((e: unknown) => e)
    expect(causeOf(error)?.kind).toBe('timeout')
    expect(model.calls).toBe(1)
  })

  it('bounds the first model call by runTimeoutMs too', async () => {
    const model = new SilentModel({})
    const agent = createAgent({ model, tools: [], middleware: [reliabilityMiddleware({ runTimeoutMs: 20 })] })
    const error = await agent.invoke(ask('hi')).catch((e: unknown) => e)
    expect(causeOf(error)?.kind).toBe('run-timeout')
    expect(model.calls).toBe(1)
  })

  it('retries a 503 on the first model call by the rules (retryTransient), and the run succeeds', async () => {
    const model = fakeModel().respond(unavailable()).respond(new AIMessage('fine'))
    const middleware = reliabilityMiddleware({ postDecide: [retryTransient(noDelay)] })
    const attempts: string[] = []
    middleware.on('attempt_end', (e) => attempts.push(e.errorKind))
    const result = await createAgent({ model, tools: [], middleware: [middleware] }).invoke(ask('hi'))
    expect(model.calls).toHaveLength(2)
    expect(result.messages.map((m: BaseMessage) => `${m.type}:${m.text}`)).toEqual(['human:hi', 'ai:fine'])
    expect(attempts).toEqual(['http-5xx', 'ok'])
  })

  it('makes every model call an attempt of the gate: calls, attempts and the outcome agree for any script of failures', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), async (fails) => {
        const model = fakeModel()
        for (const fail of fails) model.respond(fail ? unavailable() : new AIMessage('fine'))
        const middleware = reliabilityMiddleware({ postDecide: [retryTransient({ maxRetries: 3, ...noDelay })] })
        let attempts = 0
        middleware.on('attempt_start', () => attempts++)
        const outcome = await createAgent({ model, tools: [], middleware: [middleware] })
          .invoke(ask('hi'))
          .then(
            (r) => r.messages.at(-1)?.text,
            (e: unknown) => causeOf(e)?.kind,
          )
        const firstOk = fails.indexOf(false)
        // Four attempts at most (three retries); past the script, the fake model throws (kind unknown: no retry).
        const expectedCalls = firstOk >= 0 && firstOk < 4 ? firstOk + 1 : Math.min(fails.length + 1, 4)
        expect(model.calls).toHaveLength(expectedCalls)
        expect(attempts).toBe(expectedCalls)
        expect(outcome).toBe(firstOk >= 0 && firstOk < 4 ? 'fine' : fails.length < 4 ? 'unknown' : 'http-5xx')
      }),
      { numRuns: 25 },
    )
  })

  it('makes every model turn one gate run, tool-calling turns included', async () => {
    const ran: string[] = []
    const model = fakeModel()
      .respondWithTools([{ name: 'echo', args: { text: 'a' }, id: 'c1' }])
      .respondWithTools([{ name: 'echo', args: { text: 'b' }, id: 'c2' }])
      .respond(new AIMessage('done'))
    const middleware = reliabilityMiddleware({})
    const starts: string[] = []
    const ends: string[] = []
    middleware.on('run_start', (e) => starts.push(e.runId))
    middleware.on('run_end', (e) => ends.push(e.runId))
    const result = await createAgent({ model, tools: [echoTool(ran)], middleware: [middleware] }).invoke(ask('echo twice'))
    expect(model.calls).toHaveLength(3)
    expect(starts).toHaveLength(3)
    expect(new Set(starts).size).toBe(3)
    expect(ends).toEqual(starts)
    expect(ran).toEqual(['a', 'b'])
    expect(result.messages.at(-1)?.text).toBe('done')
  })

  it('keeps one breaker per middleware: opened by a failing call, it stops the next call without calling the model', async () => {
    const model = fakeModel().respond(unavailable()).respond(new AIMessage('never asked'))
    const middleware = reliabilityMiddleware({ breaker: { failureThreshold: 1, cooldownMs: 60_000 } })
    const transitions: string[] = []
    middleware.on('breaker_state', (e) => transitions.push(`${e.from}->${e.to}`))
    const agent = createAgent({ model, tools: [], middleware: [middleware] })
    const first = await agent.invoke(ask('one')).catch((e: unknown) => e)
    expect(causeOf(first)?.kind).toBe('http-5xx')
    const second = await agent.invoke(ask('two')).catch((e: unknown) => e)
    expect(causeOf(second)?.kind).toBe('circuit-open')
    expect(model.calls).toHaveLength(1)
    expect(transitions).toEqual(['closed->open'])
  })

  it('keeps its breaker across the agents it serves, and each middleware its own', async () => {
    const shared = reliabilityMiddleware({ breaker: { failureThreshold: 1, cooldownMs: 60_000 } })
    const failing = fakeModel().respond(unavailable())
    await createAgent({ model: failing, tools: [], middleware: [shared] })
      .invoke(ask('one'))
      .catch(() => undefined)
    const other = fakeModel().respond(new AIMessage('never asked'))
    const refused = await createAgent({ model: other, tools: [], middleware: [shared] })
      .invoke(ask('two'))
      .catch((e: unknown) => e)
    expect(causeOf(refused)?.kind).toBe('circuit-open')
    expect(other.calls).toHaveLength(0)
    const fresh = fakeModel().respond(new AIMessage('fine'))
    const options = { breaker: { failureThreshold: 1, cooldownMs: 60_000 } }
    const result = await createAgent({ model: fresh, tools: [], middleware: [reliabilityMiddleware(options)] }).invoke(ask('three'))
    expect(result.messages.at(-1)?.text).toBe('fine')
  })

  it('counts every model call against a shared rate limit before it is made', async () => {
    const rateLimit = sharedRateLimit({ store: memoryStore(), key: 'rate:langchain', limit: 1, windowMs: 60_000 })
    const model = fakeModel().respond(new AIMessage('first')).respond(new AIMessage('never asked'))
    const agent = createAgent({ model, tools: [], middleware: [reliabilityMiddleware({ rateLimit })] })
    expect((await agent.invoke(ask('one'))).messages.at(-1)?.text).toBe('first')
    const error = await agent.invoke(ask('two')).catch((e: unknown) => e)
    expect(causeOf(error)?.kind).toBe('rate-limit')
    expect(model.calls).toHaveLength(1)
  })

  it("answers with the fallback's answer when the gate falls back, as an AIMessage", async () => {
    const model = fakeModel().respond(unavailable())
    const fallbackRule: ReliabilityRule = { when: (s) => s.errorKind === 'http-5xx', then: 'fallback', kind: 'down' }
    const middleware = reliabilityMiddleware({ postDecide: [fallbackRule], fallback: () => 'Sorry, try later.' })
    const result = await createAgent({ model, tools: [], middleware: [middleware] }).invoke(ask('hi'))
    expect(result.messages.map((m: BaseMessage) => `${m.type}:${m.text}`)).toEqual(['human:hi', 'ai:Sorry, try later.'])
  })
})

describe('reliabilityMiddleware for LangChain: what the gate runs around', () => {
  it("re-asks invalid tool arguments through the turn's gate: a 503 on the re-ask is retried, under the turn's runId", async () => {
    const ran: string[] = []
    const model = fakeModel()
      .respondWithTools([{ name: 'echo', args: { text: 7 }, id: 'c1' }])
      .respond(unavailable())
      .respondWithTools([{ name: 'echo', args: { text: 'a' }, id: 'c2' }])
      .respond(new AIMessage('done'))
    const middleware = reliabilityMiddleware({ postDecide: [retryTransient(noDelay)] })
    const starts: string[] = []
    middleware.on('run_start', (e) => starts.push(e.runId))
    const result = await createAgent({ model, tools: [echoTool(ran)], middleware: [middleware] }).invoke(ask('echo'))
    expect(model.calls).toHaveLength(4)
    expect(ran).toEqual(['a'])
    expect(result.messages.at(-1)?.text).toBe('done')
    // The turn's run, its re-ask (same runId), then the final turn's own run.
    expect(starts).toHaveLength(3)
    expect(starts[1]).toBe(starts[0])
    expect(starts[2]).not.toBe(starts[0])
  })

  it('lets a LangGraph bubble-up (an interrupt) from inside the call leave as it came, to LangGraph: no retry, no breaker failure', async () => {
    class Pause extends Error {
      readonly is_bubble_up = true
    }
    const pause = new Pause('approve first')
    let pauses = 1
    const pauser = createMiddleware({
      name: 'Pauser',
      wrapModelCall: async (request, handler) => {
        if (pauses-- > 0) throw pause
        return handler(request)
      },
    })
    const model = fakeModel().respond(new AIMessage('fine'))
    const middleware = reliabilityMiddleware({ breaker: { failureThreshold: 1, cooldownMs: 60_000 }, postDecide: [retryTransient(noDelay)] })
    const agent = createAgent({ model, tools: [], middleware: [middleware, pauser] })
    // LangGraph takes its own bubble-up back (a MiddlewareError around a gate error would reject the invoke).
    const paused = await agent.invoke(ask('one'))
    expect(paused.messages.map((m: BaseMessage) => m.type)).toEqual(['human'])
    expect(model.calls).toHaveLength(0)
    expect((await agent.invoke(ask('two'))).messages.at(-1)?.text).toBe('fine')
  })

  it("prices each call by the chat model's own name, and a shared budget stops the call that would overspend before it is made", async () => {
    // A million input tokens at $1 a million: the call costs $1, the whole budget.
    const first = Object.assign(new AIMessage('first'), { usage_metadata: { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 } })
    const model = Object.assign(fakeModel().respond(first).respond(new AIMessage('never asked')), { model: 'chat-test' })
    const budget = sharedBudget({ store: memoryStore(), key: 'budget:langchain', usd: 1 })
    const middleware = reliabilityMiddleware({ pricing: { 'chat-test': { input: 1, output: 1 } }, budget })
    const models: (string | undefined)[] = []
    const costs: number[] = []
    middleware.on('attempt_end', (e) => models.push(e.model))
    middleware.on('run_end', (e) => costs.push(e.costUsd))
    const agent = createAgent({ model, tools: [], middleware: [middleware] })
    expect((await agent.invoke(ask('one'))).messages.at(-1)?.text).toBe('first')
    expect(models).toEqual(['chat-test'])
    expect(costs).toEqual([1])
    const error = await agent.invoke(ask('two')).catch((e: unknown) => e)
    expect(causeOf(error)?.kind).toBe('budget-exceeded')
    expect(model.calls).toHaveLength(1)
  })
})
