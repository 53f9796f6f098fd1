import { describe, expect, it, vi } from 'vitest'
import { Agent, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, EventInput, invalidEvent, turn, validEvent } from '../agent/tool-fixtures.ts'

const LINE = 'validation_retry_outcome tool=create_event ext=mailbot outcome=success retry_count=1'

function run(logger: object, logFormat?: 'auto' | 'line' | 'fields') {
  const eventTool = tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => 'ok' })
  const agent = Agent.create({
    provider: scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.']),
    model: 'm',
    name: 'mailbot',
    logger,
    ...(logFormat !== undefined ? { logFormat } : {}),
  })
    .tool(eventTool)
    .build()
  return agent.runDetailed('book', { metadata: { tenant: 'acme' } })
}

describe('Agent logger', () => {
  it('writes Imperal’s line, exactly, to a string logger', async () => {
    const info = vi.fn()
    await run({ info })
    expect(info).toHaveBeenCalledWith(LINE)
    expect(info.mock.calls.every((args) => args.length === 1)).toBe(true)
  })

  it('calls a pino-style logger with the same facts as fields, then the same line', async () => {
    const info = vi.fn()
    const result = await run({ info, child: () => ({}) })
    expect(info).toHaveBeenCalledWith(
      {
        event: 'validation_retry_outcome',
        tool: 'create_event',
        ext: 'mailbot',
        outcome: 'success',
        retry_count: 1,
        run_id: result.runId,
        turn: 1,
        metadata: { tenant: 'acme' },
      },
      LINE,
    )
  })

  it('uses fields when told to, whatever the logger looks like', async () => {
    const info = vi.fn()
    await run({ info }, 'fields')
    expect(info.mock.calls[0]?.[0]).toMatchObject({ outcome: 'success', retry_count: 1 })
    expect(info.mock.calls[0]?.[1]).toBe(LINE)
  })

  it('uses the line form when told to, even for a logger with child()', async () => {
    const info = vi.fn()
    await run({ info, child: () => ({}) }, 'line')
    expect(info).toHaveBeenCalledWith(LINE)
  })

  it('never lets a throwing structured logger affect the run', async () => {
    const result = await run({
      child: () => ({}),
      info: () => {
        throw new Error('sink down')
      },
      debug: () => {
        throw new Error('sink down')
      },
    })
    expect(result.text).toBe('Booked.')
  })
})
