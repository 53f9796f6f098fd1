import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, isStepCount, jsonSchema, tool as aiTool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, tool as lcTool } from 'langchain'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { Agent, type GateEventMap, isReliabilityFailFastError, tool } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langChainMiddleware } from '../../src/integrations/langchain.ts'
import { scripted } from '../../src/providers/index.ts'

/** A model turn of the script: `search` calls, or prose. */
type Turn = readonly { readonly id: string; readonly args: unknown }[] | string
/** The tool-retry options every host takes. */
type Options = { readonly toolGiveUpStops?: boolean }

/** What a host reported and did: outcomes, validation failures (attempt, cumulative), fail-fasts, the arguments `search` ran on, how the run ended. */
interface Seen {
  readonly outcomes: string[]
  readonly failures: [number, number][]
  readonly failFast: string[]
  readonly ran: unknown[]
  end?: string
}

type Host = { on<K extends keyof GateEventMap>(name: K, listener: (e: GateEventMap[K]) => void): unknown }

function watch(host: Host, seen: Seen): void {
  host.on('tool_retry_outcome', (e) => seen.outcomes.push(`${e.tool}:${e.outcome}:${e.retryCount}`))
  host.on('validation_failed', (e) => seen.failures.push([e.attempt, e.cumulativeRetries]))
  host.on('fail_fast', (e) => seen.failFast.push(e.kind))
}

const fresh = (): Seen => ({ outcomes: [], failures: [], failFast: [], ran: [] })

/** How a run ended: its text, or the kind and attempt count of the gate's error (behind whatever a host wraps it in). */
function ending(result: unknown): string {
  const cause = (result as { cause?: unknown } | undefined)?.cause
  const error = isReliabilityFailFastError(result) ? result : isReliabilityFailFastError(cause) ? cause : undefined
  if (error !== undefined) return `${error.kind} after ${error.attempts.length} attempts, on ${error.validationError?.stage ?? 'no validation failure'}`
  return typeof result === 'string' ? result : String(result)
}

async function viaAgent(script: readonly Turn[], options: Options): Promise<Seen> {
  const seen = fresh()
  const steps = script.map((t) => (typeof t === 'string' ? t : { content: '', toolCalls: t.map((c) => ({ ...c, name: 'search' })) }))
  const search = tool({ name: 'search', description: 'Search', input: Type.Object({ q: Type.String() }), execute: async (args) => void seen.ran.push(args) })
  const agent = Agent.create({ provider: scripted(steps), ...options })
    .tool(search)
    .build()
  watch(agent, seen)
  seen.end = ending(await agent.run('refunds?').catch((e: unknown) => e))
  return seen
}

async function viaAiSdk(script: readonly Turn[], options: Options): Promise<Seen> {
  const seen = fresh()
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  }
  const answers = script.map((t) =>
    typeof t === 'string'
      ? { content: [{ type: 'text' as const, text: t }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] }
      : {
          content: t.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: 'search', input: JSON.stringify(c.args) })),
          finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
          usage,
          warnings: [],
        },
  )
  const Query = jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })
  const middleware = reliabilityMiddleware(options)
  watch(middleware, seen)
  const run = generateText({
    model: wrapLanguageModel({ model: new MockLanguageModelV4({ doGenerate: answers as never }), middleware }),
    tools: { search: aiTool({ description: 'Search', inputSchema: Query, execute: async (args) => void seen.ran.push(args) }) },
    stopWhen: isStepCount(3),
    prompt: 'refunds?',
    maxRetries: 0,
  })
  seen.end = ending(await run.then((r) => r.text).catch((e: unknown) => e))
  return seen
}

async function viaLangChain(script: readonly Turn[], options: Options): Promise<Seen> {
  const seen = fresh()
  let model = fakeModel()
  for (const t of script)
    model = typeof t === 'string' ? model.respond(new AIMessage(t)) : model.respondWithTools(t.map((c) => ({ ...c, name: 'search' })) as never)
  const search = lcTool(async (args: { q: string }) => (seen.ran.push(args), 'no hits'), {
    name: 'search',
    description: 'Search',
    schema: z.object({ q: z.string() }),
  })
  const middleware = langChainMiddleware(options)
  watch(middleware, seen)
  const run = createAgent({ model, tools: [search], middleware: [middleware] }).invoke({ messages: [{ role: 'user', content: 'refunds?' }] })
  seen.end = ending(await run.then((r) => r.messages.at(-1)?.text).catch((e: unknown) => e))
  return seen
}

const HOSTS = { agent: viaAgent, 'AI SDK': viaAiSdk, LangChain: viaLangChain }

describe('Tool-argument retry in the three hosts', () => {
  it.each(Object.entries(HOSTS))('%s: settles a turn of two invalid calls, each fixed by one retry, reporting each outcome and failure', async (_host, via) => {
    const script: Turn[] = [
      [
        { id: 'c1', args: { q: 1 } },
        { id: 'c2', args: { q: 2 } },
      ],
      [{ id: 'r1', args: { q: 'refunds' } }],
      [{ id: 'r2', args: { q: 'returns' } }],
      'Done.',
    ]
    expect(await via(script, {})).toEqual({
      outcomes: ['search:success:1', 'search:success:1'],
      // Each call's first attempt failed; the count of the run's validation failures goes on across calls.
      failures: [
        [1, 1],
        [1, 2],
      ],
      failFast: [],
      ran: [{ q: 'refunds' }, { q: 'returns' }],
      end: 'Done.',
    })
  })

  it.each(Object.entries(HOSTS))(
    '%s: with toolGiveUpStops, stops a prose retry as tool-call-abandoned, fail_fast first, with both attempts',
    async (_host, via) => {
      expect(await via([[{ id: 'c1', args: { q: 1 } }], 'I cannot search that.', 'never read'], { toolGiveUpStops: true })).toEqual({
        outcomes: ['search:llm_gave_up:0'],
        failures: [[1, 1]],
        failFast: ['tool-call-abandoned'],
        ran: [],
        end: 'tool-call-abandoned after 2 attempts, on tool-args',
      })
    },
  )

  it.each(Object.entries(HOSTS))('%s: flags a retry repeating the rejected arguments as redundant, counts it, and takes the next one', async (_host, via) => {
    const script: Turn[] = [[{ id: 'c1', args: { q: 1 } }], [{ id: 'r1', args: { q: 1 } }], [{ id: 'r2', args: { q: 'refunds' } }], 'Done.']
    expect(await via(script, {})).toEqual({
      outcomes: ['search:redundant:1', 'search:success:2'],
      failures: [
        [1, 1],
        [2, 2],
      ],
      failFast: [],
      ran: [{ q: 'refunds' }],
      end: 'Done.',
    })
  })
})
