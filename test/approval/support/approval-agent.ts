import { Type } from 'typebox'
import { Agent, type GateEventName, type NeedsApproval, type SessionStore, tool, type ToolContext } from '../../../src/index.ts'
import { scripted, type ScriptedStep } from '../../../src/providers/index.ts'

/** The refund tool's arguments. */
export const RefundInput = Type.Object({ order: Type.Integer({ minimum: 1 }), amount: Type.Number({ minimum: 0 }) }, { additionalProperties: false })

/** A tool call of `refund` as a scripted model makes it. */
export const refundCall = (args: unknown, id = 'call_refund') => ({ content: '', toolCalls: [{ id, name: 'refund', args }] })

/** Every effect the refund tool had: its arguments and idempotency key, in order. */
export interface Effects {
  readonly runs: { readonly args: unknown; readonly key: string | undefined }[]
}

/**
 * An agent with a `refund` tool that needs approval (or `needsApproval`), over scripted steps,
 * recording the tool's effects and the approval events (with the order they came in, tool runs included).
 */
export function approvalAgent(
  steps: readonly ScriptedStep[],
  options: {
    readonly sessions?: SessionStore
    readonly needsApproval?: NeedsApproval<{ order: number; amount: number }>
    readonly approvalTimeoutMs?: number
  } = {},
) {
  const provider = scripted(steps)
  const effects: Effects = { runs: [] }
  const order: string[] = []
  const refund = tool({
    name: 'refund',
    description: 'Refund an order',
    input: RefundInput,
    needsApproval: options.needsApproval ?? true,
    ...(options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs }),
    execute: (args: { order: number; amount: number }, ctx: ToolContext) => {
      order.push('execute')
      effects.runs.push({ args, key: ctx.idempotencyKey })
      return { refunded: args.amount }
    },
  })
  const agent = Agent.create({ provider, model: 'm', name: 'refunds', ...(options.sessions === undefined ? {} : { sessions: options.sessions }) })
    .tool(refund)
    .build()
  const events: { readonly type: GateEventName; readonly payload: Record<string, unknown> }[] = []
  for (const type of ['approval_requested', 'approval_decided', 'tool_end'] as const) {
    agent.on(type, (payload) => {
      order.push(type)
      events.push({ type, payload: payload as unknown as Record<string, unknown> })
    })
  }
  return { agent, provider, effects, events, order }
}
