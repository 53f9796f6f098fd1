import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, createMiddleware, tool } from 'langchain'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { reliabilityMiddleware } from '../../src/integrations/langchain.ts'

/** A lookup tool answering `make()`. */
const lookup = (make: () => unknown) =>
  tool(async () => make() as string, { name: 'lookup', description: 'Finds an order', schema: z.object({ orderId: z.string() }) })

/** One agent turn calling `lookup`, then an answer; the tool message the model got next. */
async function toolMessage(t: ReturnType<typeof lookup>, withMiddleware = true) {
  const model = fakeModel()
    .respondWithTools([{ name: 'lookup', args: { orderId: '42' }, id: 'c1' }])
    .respond(new AIMessage('done'))
  const result = await createAgent({ model, tools: [t], middleware: withMiddleware ? [reliabilityMiddleware({})] : [] }).invoke({
    messages: [{ role: 'user', content: 'where is 42?' }],
  })
  expect(result.messages.at(-1)?.text).toBe('done')
  return result.messages[2] as BaseMessage & { status?: string }
}

describe('reliabilityMiddleware for LangChain: tool results', () => {
  it('answers a tool that returns an Error as LangChain answers one that throws it, never as {}', async () => {
    const returned = await toolMessage(lookup(() => new RangeError('the ledger is locked')))
    const thrownWithoutMiddleware = await toolMessage(
      lookup(() => {
        throw new RangeError('the ledger is locked')
      }),
      false,
    )
    expect(returned.text).toBe('RangeError: the ledger is locked\n Please fix your mistakes.')
    expect(returned.status).toBe('error')
    expect([returned.text, returned.status]).toEqual([thrownWithoutMiddleware.text, thrownWithoutMiddleware.status])
    expect((returned as unknown as { tool_call_id: string }).tool_call_id).toBe('c1')
  })

  it('hands any other result on as LangChain writes it, and leaves the tool object as it was', async () => {
    const t = lookup(() => ({ status: 'delivered' }))
    const ownCall = (t as unknown as { _call: unknown })._call
    const message = await toolMessage(t)
    expect(message.text).toBe('{"status":"delivered"}')
    expect(message.status).toBe('success')
    expect((t as unknown as { _call: unknown })._call).toBe(ownCall)
    expect(Object.hasOwn(t, '_call')).toBe(false)
  })

  it('answers a tool that throws as LangChain answers it with no middleware, and the run goes on', async () => {
    const throwing = (thrown: unknown) =>
      lookup(() => {
        throw thrown
      })
    for (const thrown of [new RangeError('x'), 'the ledger is locked', new TypeError('')]) {
      const answered = await toolMessage(throwing(thrown))
      const plain = await toolMessage(throwing(thrown), false)
      expect([answered.text, answered.status]).toEqual([plain.text, plain.status])
      expect(answered.status).toBe('error')
      expect((answered as unknown as { tool_call_id: string }).tool_call_id).toBe('c1')
    }
    expect((await toolMessage(throwing(new RangeError('x')))).text).toBe('RangeError: x\n Please fix your mistakes.')
  })

  it('answers a thrown value LangChain cannot write (a Symbol, an error whose name getter throws) without failing the run', async () => {
    const unreadable = Object.defineProperty(new Error('locked'), 'name', {
      get() {
        throw new Error('no name')
      },
    })
    expect((await toolMessage(lookup(() => Promise.reject(Symbol('gone'))))).text).toBe('Symbol(gone)\n Please fix your mistakes.')
    const message = await toolMessage(lookup(() => Promise.reject(unreadable)))
    expect(message.text).toBe('locked\n Please fix your mistakes.')
    expect(message.status).toBe('error')
  })

  it("lets what LangChain never answers leave as it came: a LangGraph bubble-up and another middleware's own error", async () => {
    class Pause extends Error {
      readonly is_bubble_up = true
    }
    const model = () =>
      fakeModel()
        .respondWithTools([{ name: 'lookup', args: { orderId: '42' }, id: 'c1' }])
        .respond(new AIMessage('done'))
    const ask = { messages: [{ role: 'user', content: 'where is 42?' }] }
    const paused = createAgent({ model: model(), tools: [lookup(() => Promise.reject(new Pause('approve first')))], middleware: [reliabilityMiddleware({})] })
    // LangGraph takes its own bubble-up back: the run pauses after the model's call, no tool message answers it.
    const result = await paused.invoke(ask)
    expect(result.messages.map((m: BaseMessage) => m.type)).toEqual(['human', 'ai'])
    const failing = createMiddleware({
      name: 'Failing',
      wrapToolCall: async () => {
        throw new Error('the audit log is down')
      },
    })
    const agent = createAgent({ model: model(), tools: [lookup(() => 'fine')], middleware: [reliabilityMiddleware({}), failing] })
    await expect(agent.invoke(ask)).rejects.toThrow('the audit log is down')
  })

  it('leaves a throwing tool to end the run once the run is aborted', async () => {
    const controller = new AbortController()
    const t = lookup(() => {
      controller.abort(new Error('stopped by the user'))
      throw new Error('interrupted')
    })
    const model = fakeModel()
      .respondWithTools([{ name: 'lookup', args: { orderId: '42' }, id: 'c1' }])
      .respond(new AIMessage('done'))
    const agent = createAgent({ model, tools: [t], middleware: [reliabilityMiddleware({})] })
    await expect(agent.invoke({ messages: [{ role: 'user', content: 'where is 42?' }] }, { signal: controller.signal })).rejects.toThrow()
    expect(model.calls).toHaveLength(1)
  })

  it('writes a result JSON would lose (a Map, a Set, an opaque instance, a cycle) as the Agent writes it, never as {}', async () => {
    class Money {
      readonly #cents = 500
      get cents(): number {
        return this.#cents
      }
    }
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic['self'] = cyclic
    const cases: [unknown, string][] = [
      [new Map([['k', 1]]), '{"k":1}'],
      [{ seen: new Set(['a']) }, '{"seen":["a"]}'],
      [{ price: new Money() }, '{"price":"[Money]"}'],
      [cyclic, '{"a":1,"self":"[Circular]"}'],
      [{ n: 10n }, '{"n":"10"}'],
    ]
    for (const [value, text] of cases) {
      const message = await toolMessage(lookup(() => value))
      expect(message.text).toBe(text)
      expect(message.status).toBe('success')
    }
  })

  it('hands on what LangChain writes itself: content blocks, a content_and_artifact tuple, plain JSON', async () => {
    const blocks = await toolMessage(lookup(() => [{ type: 'text', text: 'delivered' }]))
    expect(blocks.content).toEqual([{ type: 'text', text: 'delivered' }])
    const withArtifact = tool(async () => ['delivered', new Map([['raw', 1]])] as [string, unknown], {
      name: 'lookup',
      description: 'Finds an order',
      schema: z.object({ orderId: z.string() }),
      responseFormat: 'content_and_artifact',
    })
    const message = (await toolMessage(withArtifact as unknown as ReturnType<typeof lookup>)) as BaseMessage & { artifact?: unknown }
    expect(message.text).toBe('delivered')
    expect(message.artifact).toBeInstanceOf(Map)
    expect((await toolMessage(lookup(() => ({ a: [1, null] })))).text).toBe('{"a":[1,null]}')
  })
})
