import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, isStepCount, jsonSchema, tool as aiTool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, tool as lcTool } from 'langchain'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { Agent, type GateEventMap, tool } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langChainMiddleware } from '../../src/integrations/langchain.ts'
import { scripted } from '../../src/providers/index.ts'

/** One script for the three hosts: a turn of two invalid `search` calls, a retry fixing each, then the answer. */
const SCRIPT = [
  [
    { id: 'c1', args: { q: 1 } },
    { id: 'c2', args: { q: 2 } },
  ],
  [{ id: 'r1', args: { q: 'refunds' } }],
  [{ id: 'r2', args: { q: 'returns' } }],
] as const

interface Seen {
  readonly outcomes: string[]
  readonly failures: [number, number][]
  readonly ran: unknown[]
}

function watcher(): { seen: Seen; on: (host: { on: <K extends keyof GateEventMap>(k: K, l: (e: GateEventMap[K]) => void) => unknown }) => void } {
  const seen: Seen = { outcomes: [], failures: [], ran: [] }
  return {
    seen,
    on(host) {
      host.on('tool_retry_outcome', (e) => seen.outcomes.push(`${e.tool}:${e.outcome}:${e.retryCount}`))
      host.on('validation_failed', (e) => seen.failures.push([e.attempt, e.cumulativeRetries]))
    },
  }
}

async function viaAgent(): Promise<Seen> {
  const { seen, on } = watcher()
  const steps = [...SCRIPT.map((calls) => ({ content: '', toolCalls: calls.map((c) => ({ ...c, name: 'search' })) })), 'Done.']
  const search = tool({ name: 'search', description: 'Search', input: Type.Object({ q: Type.String() }), execute: async (args) => void seen.ran.push(args) })
  const agent = Agent.create({ provider: scripted(steps) })
    .tool(search)
    .build()
  on(agent)
  await agent.run('refunds?')
  return seen
}

async function viaAiSdk(): Promise<Seen> {
  const { seen, on } = watcher()
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  }
  const answers = SCRIPT.map((calls) => ({
    content: calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: 'search', input: JSON.stringify(c.args) })),
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  }))
  const done = { content: [{ type: 'text' as const, text: 'Done.' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] }
  const Query = jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })
  const middleware = reliabilityMiddleware()
  on(middleware)
  await generateText({
    model: wrapLanguageModel({ model: new MockLanguageModelV4({ doGenerate: [...answers, done] }), middleware }),
    tools: { search: aiTool({ description: 'Search', inputSchema: Query, execute: async (args) => void seen.ran.push(args) }) },
    stopWhen: isStepCount(3),
    prompt: 'refunds?',
  })
  return seen
}

async function viaLangChain(): Promise<Seen> {
  const { seen, on } = watcher()
  let model = fakeModel()
  for (const calls of SCRIPT) model = model.respondWithTools(calls.map((c) => ({ ...c, name: 'search' })))
  model = model.respond(new AIMessage('Done.'))
  const search = lcTool(async (args: { q: string }) => (seen.ran.push(args), 'no hits'), {
    name: 'search',
    description: 'Search',
    schema: z.object({ q: z.string() }),
  })
  const middleware = langChainMiddleware()
  on(middleware)
  await createAgent({ model, tools: [search], middleware: [middleware] }).invoke({ messages: [{ role: 'user', content: 'refunds?' }] })
  return seen
}

describe('Tool-argument retry in the three hosts', () => {
  it('reports the same outcomes and validation failures, and runs the same final arguments, for one script', async () => {
    const expected: Seen = {
      outcomes: ['search:success:1', 'search:success:1'],
      // Each call's first attempt failed; the count of the run's validation failures goes on across calls.
      failures: [
        [1, 1],
        [1, 2],
      ],
      ran: [{ q: 'refunds' }, { q: 'returns' }],
    }
    expect(await viaAgent()).toEqual(expected)
    expect(await viaAiSdk()).toEqual(expected)
    expect(await viaLangChain()).toEqual(expected)
  })
})
