import OpenAI from 'openai'
import { Type } from 'typebox'
import type { DurablePort } from '../../../src/durable.ts'
import { Agent, sharedBudget, strictOutputRules, tool } from '../../../src/index.ts'
import { openai } from '../../../src/providers/openai/index.ts'
import { redisSessionStore, redisStore } from '../../../src/redis.ts'
import { Refund } from '../../support/schemas.ts'
import { sweepRun } from './fault-sweep-script.ts'

/** The model of the demo agent, priced at 1 USD per million input tokens (the fake provider bills 100 tokens per request message). */
export const DEMO_MODEL = 'gpt-sweep'
export const DEMO_PRICING = { [DEMO_MODEL]: { input: 1, output: 0 } }

/** The final answer the output schema rejects (its amount is text), then the one it accepts. */
export const REJECTED_ANSWER = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'
export const ACCEPTED_ANSWER = '{"orderId":"42","action":"refund","amount":50}'

/** The slice of an ioredis client the demo agent uses (its budget, effects and session store). */
export interface DemoRedis {
  hsetnx(key: string, field: string, value: string): Promise<number>
  hincrby(key: string, field: string, by: number): Promise<number>
}

/** Where a demo run keeps its state in Redis: its budget, its refunds (one per idempotency key), its raw executions, its session. */
export const demoKeys = (runId: string) => ({
  budget: `budget:${runId}`,
  refunds: `demo:refunds:${runId}`,
  executions: `demo:executions:${runId}`,
  session: runId,
})

/** Key prefixes of the demo's two Redis stores. */
export const STATE_PREFIX = 'demo-state:'
export const SESSION_PREFIX = 'demo-session:'

interface DemoAgentOptions {
  /** The fake provider's base URL (`http://127.0.0.1:<port>/v1`). */
  readonly baseURL: string
  readonly seed: number
  readonly runId: string
  readonly redis: DemoRedis
}

/**
 * The demo agent of a seed: the model (through the OpenAI SDK and adapter, on the counting fake
 * provider) calls refunds and lookups for the seed's tool turns, then answers a refund decision the
 * output schema rejects, then, with the feedback, a valid one. Each refund is applied through Redis
 * once per idempotency key (`HSETNX`), and every execution is counted raw (`HINCRBY`). The run's cost
 * is charged to a shared Redis budget; its exchange is committed to a Redis session.
 */
export function demoAgent({ baseURL, seed, runId, redis }: DemoAgentOptions) {
  const keys = demoKeys(runId)
  const client = new OpenAI({ baseURL, apiKey: 'sweep', maxRetries: 0, timeout: 30_000, defaultHeaders: { 'x-run-id': runId, 'x-demo-seed': String(seed) } })
  const store = redisStore(redis as never, { keyPrefix: STATE_PREFIX })
  const refund = tool({
    name: 'refund',
    description: 'Refund an order',
    input: Type.Object({ order: Type.String(), cents: Type.Integer() }, { additionalProperties: false }),
    execute: async ({ order }, { idempotencyKey }) => {
      const key = idempotencyKey ?? `no-key:${order}`
      await redis.hincrby(keys.executions, key, 1)
      await redis.hsetnx(keys.refunds, key, order)
      return { refunded: order }
    },
  })
  const lookup = tool({
    name: 'lookup',
    description: 'Look an order up',
    input: Type.Object({ order: Type.String() }, { additionalProperties: false }),
    execute: ({ order }) => ({ order, status: 'shipped' }),
  })
  const agent = Agent.create({ provider: openai({ client, model: DEMO_MODEL }), sessions: redisSessionStore(redis as never, { keyPrefix: SESSION_PREFIX }) })
    .reliability({ pricing: DEMO_PRICING, budget: sharedBudget({ store, key: keys.budget, usd: 100 }), postDecide: strictOutputRules(3) })
    .outputSchema(Refund)
    .tools([refund, lookup])
    .build()
  return {
    /** Runs the seed's exchange on the run's session, under `durable`. */
    run: async (durable: DurablePort) => {
      const session = await agent.session(keys.session)
      const result = await session.runDetailed(`refund the orders of run ${seed}`, { durable })
      return { value: result.value, costUsd: result.costUsd, calls: result.functionsCalled.map((f) => [f.id, f.status]) }
    },
  }
}

/** What a demo run answers: its decision, cost and tool calls. */
export type DemoResult = Awaited<ReturnType<ReturnType<typeof demoAgent>['run']>>

/** The fake provider's answer for seed `seed` to a chat request of `messages` (OpenAI wire): the next tool turn, else the final answer. */
export function demoAnswer(
  seed: number,
  messages: readonly { role: string; tool_calls?: unknown }[],
): { content: string | null; toolCalls?: readonly { id: string; name: string; arguments: string }[] } {
  const { turns } = sweepRun(seed)
  const turn = messages.filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls)).length
  const calls = turns[turn]
  if (calls !== undefined) return { content: null, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.stringify(c.args) })) }
  return { content: attemptOf(messages) === 1 ? REJECTED_ANSWER : ACCEPTED_ANSWER }
}

/** The attempt a request is at within its model turn: 1 plus the answers re-asked since the last tool result or user input. */
export function attemptOf(messages: readonly { role: string; tool_calls?: unknown }[]): number {
  let attempt = 1
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role: string; tool_calls?: unknown }
    if (m.role === 'tool') break
    if (m.role === 'assistant' && !Array.isArray(m.tool_calls)) attempt++
  }
  return attempt
}

/** A request's label in the provider's log: `<turn>:<attempt>`, its model turn counted by the assistant tool turns before it. */
export function labelOf(messages: readonly { role: string; tool_calls?: unknown }[]): string {
  const turn = 1 + messages.filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls)).length
  return `${turn}:${attemptOf(messages)}`
}

/**
 * `port`, with this process SIGKILLing itself at kill point `killAt` of the run: three per step of
 * every kind (model attempt, tool call, session commit), 3i before step i, 3i+1 inside it (its action
 * done, its outcome not yet journaled), 3i+2 after it. `-1` never kills.
 */
export function killAtStep(port: DurablePort, killAt: number): DurablePort {
  let point = 0
  const cross = (): void => {
    if (point++ === killAt) process.kill(process.pid, 'SIGKILL')
  }
  return {
    runId: port.runId,
    async step(name, fn) {
      cross()
      const value = await port.step(name, async () => {
        const done = await fn()
        cross()
        return done
      })
      cross()
      return value
    },
    sleep: (name, ms) => port.sleep(name, ms),
  }
}
