import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { DurablePort } from '../../../src/durable.ts'
import { Agent, tool, type ToolContext } from '../../../src/index.ts'
import { type ScriptedStep, scripted } from '../../../src/providers/index.ts'
import { RefundInput, refundCall } from './approval-agent.ts'

/** What the engines' workflows answer: the run's text and its calls' statuses. */
export interface RefundOutcome {
  readonly text: string
  readonly statuses: readonly string[]
}

/**
 * The engines' agent, made anew for every execution of the workflow (a replay starts from the first
 * model answer): a model that calls `refund` once, then answers. The refund needs approval; its
 * `execute` appends every attempt to `<dir>/attempts`, holds while `<dir>/hold` exists (after
 * writing `<dir>/in-tool`, so a test can SIGKILL it between the claim and the effect), then records
 * its effect in `<dir>/effects` once per idempotency key (the payment API's own deduplication).
 * `approval_requested` writes the approval to `<dir>/requested`.
 */
export async function durableRefund(durable: DurablePort, dir: string): Promise<RefundOutcome> {
  const refund = tool({
    name: 'refund',
    description: 'Refund an order',
    input: RefundInput,
    needsApproval: true,
    execute: async (args: { order: number; amount: number }, ctx: ToolContext) => {
      appendFileSync(join(dir, 'attempts'), `${ctx.idempotencyKey}\n`)
      while (existsSync(join(dir, 'hold'))) {
        writeFileSync(join(dir, 'in-tool'), '')
        await sleep(20)
      }
      const done = existsSync(join(dir, 'effects')) ? readFileSync(join(dir, 'effects'), 'utf8').split('\n') : []
      if (!done.includes(String(ctx.idempotencyKey))) appendFileSync(join(dir, 'effects'), `${ctx.idempotencyKey}\n`)
      return { refunded: args.amount }
    },
  })
  // Answered by turn, not by call: a resumed process is asked only for the turns its journal does not answer.
  const answers = [refundCall({ order: 42, amount: 10 }), 'refunded'] as const
  const byTurn: ScriptedStep = (request) => answers[request.messages.filter((m) => m.role === 'assistant').length] as ScriptedStep
  const agent = Agent.create({ provider: scripted([byTurn, byTurn]), model: 'm', name: 'refunds' })
    .tool(refund)
    .build()
  agent.on('approval_requested', (e) =>
    writeFileSync(join(dir, 'requested'), JSON.stringify({ approvalId: e.approvalId, argsDigest: e.argsDigest, via: e.via })),
  )
  const result = await agent.runDetailed('refund order 42', { durable })
  return { text: result.text, statuses: result.functionsCalled.map((c) => c.status) }
}

/** The lines of `<dir>/<file>` (none when it does not exist). */
export function linesOf(dir: string, file: string): string[] {
  const path = join(dir, file)
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []
}
