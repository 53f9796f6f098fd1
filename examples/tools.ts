/**
 * Tools: a mail assistant whose model first calls `reply_email` without the message id, is told
 * exactly what is missing (ephemerally), then invents a slug-shaped id, which the ID-shape guard
 * blocks; the model reads the error, looks the message up, and replies with the real id. A scripted
 * model plays the conversation so every step is visible and deterministic.
 */
import { Type } from 'typebox'
import { Agent, tool } from '../src/index.ts'
import { scripted } from '../src/providers/index.ts'
import { section, watch } from './trace.ts'

const findMessage = tool({
  name: 'find_message',
  description: 'Find the id of the latest message from a sender',
  input: Type.Object({ from: Type.String() }, { additionalProperties: false }),
  execute: ({ from }) => ({ message_id: '18c4f2a9b7e3d105', from }),
})

const replyEmail = tool({
  name: 'reply_email',
  description: 'Reply to a message',
  input: Type.Object({ message_id: Type.String(), body: Type.String() }, { additionalProperties: false }),
  execute: ({ message_id }) => `sent a reply to ${message_id}`,
})

const model = scripted([
  { toolCalls: [{ id: 'c1', name: 'reply_email', args: { body: 'Thanks, see you Monday.' } }] },
  { toolCalls: [{ id: 'c1-retry', name: 'reply_email', args: { message_id: 'acme-gmail-1', body: 'Thanks, see you Monday.' } }] },
  { toolCalls: [{ id: 'c2', name: 'find_message', args: { from: 'ana@acme.example' } }] },
  { toolCalls: [{ id: 'c3', name: 'reply_email', args: { message_id: '18c4f2a9b7e3d105', body: 'Thanks, see you Monday.' } }] },
  'Done: I replied to Ana.',
])

export async function toolsExample(): Promise<void> {
  section('tools', 'Tool-argument validation with bounded, ephemeral retries and an ID-shape guard on every retry.')
  const logger = { info: (line: string) => console.log(`  log ${line}`), warn: (line: string) => console.log(`  log ${line}`) }
  const agent = Agent.create({ provider: model, model: 'scripted-1', name: 'mail', logger }).tools([findMessage, replyEmail]).build()
  watch(agent)
  agent.on('validation_failed', (e) => console.log(`  validation_failed stage=${e.stage} ${e.message}`))
  const result = await agent.runDetailed('Reply to Ana that Monday works.')
  for (const f of result.functionsCalled) {
    console.log(`  ${f.name}(${JSON.stringify(f.args)}) -> ${f.status}, outcome=${f.outcome}, retries=${f.retryCount}${f.intercepted ? ', intercepted' : ''}`)
  }
  console.log(`  answer: ${result.text}`)
  console.log(
    `  model calls: ${result.attempts.length}; persisted history: ${agent.history.length} messages, ephemeral ones: ${agent.history.filter((m) => m.ephemeral).length}`,
  )
}

if (import.meta.main) await toolsExample()
