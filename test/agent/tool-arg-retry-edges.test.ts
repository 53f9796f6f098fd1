import { describe, expect, it } from 'vitest'
import { Agent } from '../../src/index.ts'
import type { Logger } from '../../src/agent/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { abortThenHang } from '../support/abort-then-hang.ts'
import { call, invalidEvent, makeTools, turn, validEvent } from './tool-fixtures.ts'

function recordingLogger() {
  const lines: string[] = []
  const logger: Logger = {
    debug: (l) => lines.push(`debug ${l}`),
    info: (l) => lines.push(`info ${l}`),
    warn: (l) => lines.push(`warn ${l}`),
  }
  return { lines, logger }
}

describe('Agent tool-argument retry log levels', () => {
  it('logs llm_gave_up at info when the retry answers in text, and the prose answer stands', async () => {
    const { lines, logger } = recordingLogger()
    const tools = makeTools()
    const agent = Agent.create({ provider: scripted([turn(call('create_event', invalidEvent)), 'I cannot.', 'never read']), name: 'cal', logger })
      .tool(tools.eventTool)
      .build()
    await expect(agent.run('book')).resolves.toBe('I cannot.')
    expect(lines).toEqual(['info validation_retry_outcome tool=create_event ext=cal outcome=llm_gave_up retry_count=0'])
  })

  it('logs llm_gave_up at info when, with forcedToolReask and toolGiveUpStops, the retry and the forced re-ask answer in text, and the run stops', async () => {
    const { lines, logger } = recordingLogger()
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), 'I cannot.', 'No.', 'Done.'])
    const agent = Agent.create({ provider, name: 'cal', logger, forcedToolReask: true, toolGiveUpStops: true }).tool(tools.eventTool).build()
    await expect(agent.run('book')).rejects.toMatchObject({ kind: 'tool-call-abandoned' })
    expect(lines).toContain('info validation_retry_outcome tool=create_event ext=cal outcome=llm_gave_up retry_count=0')
  })

  it('logs llm_gave_up at info when the retry switches to another tool', async () => {
    const { lines, logger } = recordingLogger()
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), turn(call('reply_email', { message_id: '18c4f2a9b7e3d105', body: 'x' })), 'Done.'])
    await Agent.create({ provider, logger }).tools([tools.eventTool, tools.replyTool]).build().run('book')
    expect(lines).toEqual(['info validation_retry_outcome tool=create_event ext=agent outcome=llm_gave_up retry_count=0'])
  })

  it('never lets a logger that throws affect the run', async () => {
    const explode = () => {
      throw new Error('log sink full')
    }
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.'])
    const agent = Agent.create({ provider, logger: { debug: explode, info: explode, warn: explode, error: explode } })
      .tool(tools.eventTool)
      .build()
    const result = await agent.runDetailed('book')
    expect(result.text).toBe('Booked.')
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'success', status: 'ok' })
  })
})

describe('Agent tool-argument retry edges', () => {
  it('ends a call as fabricated_id_on_retry when the retry invents an ID, even in arguments that also fail the schema', async () => {
    const tools = makeTools()
    const provider = scripted([turn(call('reply_email', { body: 'ok' })), turn(call('reply_email', { message_id: 'acme-mail-2' })), 'Done.'])
    const result = await Agent.create({ provider }).tool(tools.replyTool).build().runDetailed('reply')
    expect(provider.calls).toBe(3)
    expect(result.functionsCalled).toEqual([
      expect.objectContaining({ outcome: 'fabricated_id_on_retry', status: 'guard-rejected', retryCount: 1, args: { message_id: 'acme-mail-2' } }),
    ])
    expect(tools.reply).not.toHaveBeenCalled()
  })

  it('stops with kind aborted, without another model call, when the run is aborted during an argument retry', async () => {
    const controller = new AbortController()
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), abortThenHang(controller), 'never'])
    const agent = Agent.create({ provider }).tool(tools.eventTool).build()
    await expect(agent.run('book', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(2)
    expect(tools.createEvent).not.toHaveBeenCalled()
    expect(agent.history).toEqual([])
  })
})

describe('Agent log lines', () => {
  it('quote an agent name holding a space, "=" or a newline, so it cannot forge a field or a line', async () => {
    const { lines, logger } = recordingLogger()
    const broken = {
      when: () => {
        throw new Error('rule bug')
      },
      then: 'retry' as const,
      kind: 'broken',
    }
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.'])
    const agent = Agent.create({ provider, name: 'mail bot=1\noutcome=success', logger })
      .reliability({ postDecide: [broken] })
      .tool(tools.eventTool)
      .build()
    await agent.run('book', { runId: 'run one' })
    const named = lines.filter((l) => l.includes('agent=') || l.includes('ext='))
    expect(named.length).toBeGreaterThanOrEqual(2)
    for (const line of named) {
      expect(line).toMatch(/(agent|ext)="mail bot=1\\noutcome=success"/)
      expect(line).not.toMatch(/ run=run one/)
    }
  })
})
