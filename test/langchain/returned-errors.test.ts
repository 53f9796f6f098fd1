import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, tool } from 'langchain'
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
})
