import { runInNewContext } from 'node:vm'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, tool, type RunResult } from '../../src/index.ts'
import { memoryDurablePort } from '../../src/durable.ts'
import { scripted } from '../../src/providers/index.ts'
import { hostileProxy, THROWN_VALUES } from '../support/hostile-values.ts'
import { noEphemeral } from './support.ts'

const Input = Type.Object({ q: Type.String() })
const callT = { content: '', toolCalls: [{ id: 'c1', name: 't', args: { q: 'x' } }] }

/** Runs one tool turn with `execute`, then a final answer; returns the run's result and the agent's history. */
async function withTool(
  execute: (args: { q: string }) => unknown,
  signal?: AbortSignal,
): Promise<{ result: RunResult<string> | undefined; error: unknown; history: readonly unknown[]; toolMessage: string | undefined }> {
  const provider = scripted([callT, 'done'])
  const agent = Agent.create({ provider })
    .tool(tool({ name: 't', description: 't', input: Input, execute }))
    .build()
  const toolMessage = (): string | undefined => provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content
  try {
    const result = await agent.runDetailed('go', signal === undefined ? undefined : { signal })
    return { result, error: undefined, history: agent.history, toolMessage: toolMessage() }
  } catch (error) {
    return { result: undefined, error, history: agent.history, toolMessage: toolMessage() }
  }
}

describe('hostile tools: execute throws anything', () => {
  it.each(THROWN_VALUES)('answer a tool that throws %s as execute-failed with a readable message, and go on', async (_name, make, message) => {
    const { result, history } = await withTool(() => Promise.reject(make()))
    expect(result?.text).toBe('done')
    expect(result?.functionsCalled.map((f) => [f.status, f.outcome])).toEqual([['execute-failed', 'no_retry']])
    const content = result?.functionsCalled[0]?.error ?? ''
    expect(content.startsWith("TOOL_ERROR: tool 't' failed: ")).toBe(true)
    if (typeof message === 'string') expect(content).toBe(`TOOL_ERROR: tool 't' failed: ${message}`)
    expect(noEphemeral(history as never)).toBe(true)
  })

  it('answers a tool that throws synchronously the same way', async () => {
    const { result } = await withTool(() => {
      throw new RangeError('sync boom')
    })
    expect(result?.functionsCalled[0]).toMatchObject({ status: 'execute-failed', error: "TOOL_ERROR: tool 't' failed: sync boom" })
  })
})

describe('hostile tools: results that are not JSON', () => {
  it.each([
    ['an object without prototype', () => Object.assign(Object.create(null) as object, { a: 1 }), '{"a":1}'],
    ['undefined', () => undefined, '(no result)'],
    ['null', () => null, 'null'],
    ['a string as it is', () => 'plain', 'plain'],
  ])('send %s back to the model as readable text', async (_name, make, content) => {
    const { result, toolMessage } = await withTool(() => make())
    expect(result?.functionsCalled[0]?.status).toBe('ok')
    expect(result?.text).toBe('done')
    expect(toolMessage).toBe(content)
  })

  it('answers a hostile Proxy result as execute-failed: awaiting it reads its then, which throws', async () => {
    const { result, toolMessage } = await withTool(() => hostileProxy())
    expect(result?.functionsCalled[0]?.status).toBe('execute-failed')
    expect(toolMessage).toBe("TOOL_ERROR: tool 't' failed: trap")
  })
})

describe('hostile tools: hangs', () => {
  it('settles the run with kind aborted when execute ignores the signal and never returns', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 5)
    const { error, history } = await withTool(() => new Promise(() => {}), controller.signal)
    expect(error).toMatchObject({ name: 'ReliabilityFailFastError', kind: 'aborted' })
    expect(history).toEqual([])
  })
})

describe('hostile tools: arguments nested without end', () => {
  /** Arguments `{"q":"x","a":{"a":...}}` nested `depth` levels, as a provider SDK hands them (parsed). */
  const nested = (depth: number): unknown => JSON.parse(`{"q":"x",${'"a":{'.repeat(depth - 1)}"b":1${'}'.repeat(depth)}`)
  const provider = (args: unknown) => {
    let turn = 0
    const usage = { inputTokens: 1, outputTokens: 1 }
    return {
      name: 'deep',
      complete: async () =>
        turn++ === 0
          ? { content: '', toolCalls: [{ id: 'c1', name: 't', args }], usage, stopReason: 'tool_use' as const }
          : { content: 'done', toolCalls: [], usage, stopReason: 'end' as const },
    }
  }

  it.each([300, 5_000, 100_000])('answers arguments nested %i levels deep with feedback, never running the tool', async (depth) => {
    const ran: unknown[] = []
    const agent = Agent.create({ provider: provider(nested(depth)), maxToolRetries: 0 })
      .tool(tool({ name: 't', description: 't', input: Input, execute: (args) => ran.push(args) }))
      .build()
    const result = await agent.runDetailed('go')
    expect(result.text).toBe('done')
    expect(ran).toEqual([])
    expect(result.functionsCalled.map((f) => [f.status, f.outcome])).toEqual([['invalid-args', 'exhausted']])
    expect(result.functionsCalled[0]?.error).toContain('nesting deeper than 256 levels')
    expect(noEphemeral(agent.history as never)).toBe(true)
  })

  it('runs the tool on arguments nested 256 levels deep, as deep as a JSON text may be', async () => {
    const ran: unknown[] = []
    const agent = Agent.create({ provider: provider(nested(256)) })
      .tool(tool({ name: 't', description: 't', input: Input, execute: (args) => ran.push(args) }))
      .build()
    expect((await agent.runDetailed('go')).functionsCalled[0]?.status).toBe('ok')
    expect(ran).toHaveLength(1)
  })
})

describe('hostile tools: execute returns an Error', () => {
  it.each([
    ['an Error', () => new Error('the ledger is locked')],
    ['a subclass', () => new RangeError('the ledger is locked')],
    ['an Error from another realm', () => runInNewContext("new Error('the ledger is locked')") as unknown],
    ['a promise of an Error', () => Promise.resolve(new TypeError('the ledger is locked'))],
  ])('tells the model %s as a thrown one is told, never as {}, and records the call execute-failed', async (_name, make) => {
    const { result, toolMessage } = await withTool(() => make())
    expect(toolMessage).toBe("TOOL_ERROR: tool 't' failed: the ledger is locked")
    expect(result?.functionsCalled[0]).toMatchObject({
      status: 'execute-failed',
      result: undefined,
      error: "TOOL_ERROR: tool 't' failed: the ledger is locked",
    })
    expect(result?.text).toBe('done')
  })

  it('journals a returned Error as a failure: a durable replay tells the model the same and runs nothing again', async () => {
    const journal: string[] = []
    const run = async () => {
      const provider = scripted([callT, 'done'])
      let runs = 0
      const agent = Agent.create({ provider })
        .tool(
          tool({
            name: 't',
            description: 't',
            input: Input,
            execute: () => {
              runs++
              return new Error('the ledger is locked')
            },
          }),
        )
        .build()
      const result = await agent.runDetailed('go', { durable: memoryDurablePort({ runId: 'returned-error', journal }) })
      return { result, runs, toolMessage: provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content }
    }
    const first = await run()
    const replay = await run()
    expect([first.runs, replay.runs]).toEqual([1, 0])
    expect(first.toolMessage).toBe("TOOL_ERROR: tool 't' failed: the ledger is locked")
    for (const { result } of [first, replay]) {
      expect(result.functionsCalled[0]).toMatchObject({ status: 'execute-failed', error: "TOOL_ERROR: tool 't' failed: the ledger is locked" })
    }
  })
})
