import { Type } from 'typebox'
import { vi } from 'vitest'
import { Agent, tool, type GateEventMap, type ToolGuard } from '../../src/index.ts'
import type { Logger } from '../../src/agent/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import type { ToolCall } from '../../src/model/index.ts'

/** The event-creation tool of the scenarios: a title, a date-time, an integer, a list. */
export const EventInput = Type.Object(
  {
    title: Type.String(),
    at: Type.String({ format: 'date-time' }),
    attendees: Type.Integer(),
    tags: Type.Array(Type.String()),
  },
  { additionalProperties: false },
)

export const validEvent = { title: 'Standup', at: '2026-05-03T09:00:00Z', attendees: 4, tags: ['team'] }
export const invalidEvent = { title: 'Standup', at: 'tomorrow', attendees: 4, tags: ['team'] }

export const ReplyInput = Type.Object({ message_id: Type.String(), body: Type.String() }, { additionalProperties: false })

/** A tool call as a model would make it. */
export const call = (name: string, args: unknown, id = `call_${name}`): ToolCall => ({ id, name, args })

/** A tool-call turn of a scripted model. */
export const turn = (...toolCalls: ToolCall[]) => ({ content: '', toolCalls })

/** Fresh tools with spied `execute`s. */
export function makeTools() {
  const createEvent = vi.fn(async (args: { title: string }) => ({ created: args.title }))
  const reply = vi.fn(async (args: { message_id: string }) => `replied to ${args.message_id}`)
  return {
    createEvent,
    reply,
    eventTool: tool({ name: 'create_event', description: 'Create a calendar event', input: EventInput, execute: createEvent }),
    replyTool: tool({ name: 'reply_email', description: 'Reply to an email', input: ReplyInput, execute: reply }),
  }
}

/**
 * An agent named `mailbot` with both tools over scripted steps, recording its log lines (with their
 * level) and its `tool_retry_outcome` events.
 */
export function retryAgent(
  steps: readonly ScriptedStep[],
  options: { maxToolRetries?: number; toolGuards?: readonly ToolGuard[]; forcedToolReask?: boolean; toolGiveUpStops?: boolean } = {},
) {
  const provider = scripted(steps)
  const tools = makeTools()
  const lines: { level: string; line: string }[] = []
  const logger: Logger = {
    debug: (line) => lines.push({ level: 'debug', line }),
    info: (line) => lines.push({ level: 'info', line }),
    warn: (line) => lines.push({ level: 'warn', line }),
  }
  const agent = Agent.create({ provider, model: 'm', name: 'mailbot', logger, ...options })
    .tools([tools.eventTool, tools.replyTool])
    .build()
  const outcomes: GateEventMap['tool_retry_outcome'][] = []
  agent.on('tool_retry_outcome', (e) => outcomes.push(e))
  return { provider, agent, outcomes, lines, ...tools }
}
