/**
 * Conversations that outlive the process: a support agent keeps its conversations in a SQLite file.
 * A first process talks with a customer, then exits; a second process (a real child process, as
 * after a restart or on another instance) opens the same file, resumes the conversation and answers
 * from what was said before. The model's first answers fail the schema, so every run carries
 * ephemeral feedback: the file holds the accepted exchanges only.
 *
 * Run alone: `npx node examples/sessions.ts` (add a path to keep the file: `npx node examples/sessions.ts chat.db`).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { Type } from 'typebox'
import { Agent, strictOutputRules, type Provider } from '../src/index.ts'
import { sqliteSessionStore } from '../src/sqlite.ts'
import { section } from './trace.ts'

const Reply = Type.Object({ reply: Type.String() })

/**
 * A tiny stand-in for a model: it remembers an order number the customer gave earlier in the
 * conversation it is sent. Its first try of each turn is prose (rejected by the schema); after the
 * gate's feedback it answers JSON.
 */
const supportModel: Provider = {
  name: 'support-model',
  async complete(request) {
    const usage = { inputTokens: 20, outputTokens: 10 }
    if (!request.messages.some((m) => m.ephemeral === true)) return { content: 'Sure! Let me check that for you.', toolCalls: [], usage, stopReason: 'end' }
    const said = request.messages.filter((m) => m.role === 'user' && m.ephemeral !== true).map((m) => m.content)
    const order = said.map((text) => /#(\d+)/.exec(text)?.[1]).findLast((n) => n !== undefined)
    const question = said.at(-1) ?? ''
    const reply = /where/i.test(question)
      ? order === undefined
        ? 'Which order do you mean?'
        : `Order #${order} left our warehouse yesterday.`
      : `Noted${order === undefined ? '' : `: order #${order}`}.`
    return { content: JSON.stringify({ reply }), toolCalls: [], usage, stopReason: 'end' }
  },
}

/** One process of the service: an agent on the conversations file. */
function supportAgent(path: string) {
  const sessions = sqliteSessionStore({ path })
  const agent = Agent.create({ provider: supportModel, model: 'support-1', name: 'support', sessions })
    .system('You answer questions about orders. Reply as JSON {"reply": "..."}.')
    .outputSchema(Reply)
    .reliability({ postDecide: strictOutputRules(3) })
    .build()
  return { agent, sessions }
}

/** The second process: resume `customer-42` from the file and ask a question that needs the earlier turns. */
async function resume(path: string): Promise<void> {
  const { agent, sessions } = supportAgent(path)
  const conversation = await agent.session('customer-42')
  console.log(`  process ${process.pid}: loaded customer-42 at version ${conversation.version} (${conversation.history.length} messages)`)
  const result = await conversation.runDetailed('Where is it now?')
  console.log(`  customer: Where is it now?\n  agent:    ${(result.value as { reply: string }).reply}`)
  console.log(`  committed at version ${result.session?.version} (computed on version ${result.session?.basedOn}), after ${result.attempts.length} attempts`)
  sessions.close()
}

export async function sessionsExample(keep?: string): Promise<void> {
  section('sessions', 'A conversation in a SQLite file, resumed by another process.')
  const dir = keep === undefined ? mkdtempSync(join(tmpdir(), 'rg-example-')) : undefined
  const path = keep ?? join(dir as string, 'conversations.db')
  try {
    const { agent, sessions } = supportAgent(path)
    const conversation = await agent.session('customer-42')
    console.log(`  process ${process.pid}: opened customer-42 at version ${conversation.version}`)
    for (const message of ['Hi, I ordered a lamp, order #4417.', 'It was a gift.']) {
      const reply = (await conversation.runTyped(message)) as { reply: string }
      console.log(`  customer: ${message}\n  agent:    ${reply.reply}`)
    }
    console.log(`  process ${process.pid} exits.`)
    sessions.close()
    const child = spawnSync(process.execPath, [import.meta.filename, '--resume', path], { encoding: 'utf8' })
    process.stdout.write(child.stdout)
    if (child.status !== 0) throw new Error(`the resuming process failed: ${child.stderr}`)
    // What the file holds: the accepted exchanges, none of the rejected drafts or the feedback.
    const db = new DatabaseSync(path, { readOnly: true })
    const rows = db.prepare("SELECT body FROM rg_session_exchanges WHERE id = 'customer-42' ORDER BY seq").all() as { body: string }[]
    db.close()
    const stored = rows.map((r) => r.body).join('\n')
    console.log(
      `  ${keep ?? 'the file'} holds ${rows.length} exchanges; rejected drafts or feedback stored: ${/Let me check|ephemeral/.test(stored) ? 'yes' : 'none'}`,
    )
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf('--resume')
  if (at >= 0) await resume(process.argv[at + 1] as string)
  else await sessionsExample(process.argv[2])
}
