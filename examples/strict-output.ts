/**
 * Strict output: a refund decision that must match a schema. The simulated model makes the
 * mistakes real models make on the first try; the gate feeds back precise, ephemeral feedback.
 */
import { Type } from 'typebox'
import { Agent, strictOutputRules } from '../src/index.ts'
import { simulated } from '../src/providers/index.ts'
import { section, traceAgent } from './trace.ts'

export const Refund = Type.Object(
  {
    orderId: Type.String(),
    action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]),
    amount: Type.Number(),
    reason: Type.String(),
    decidedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)

export async function strictOutputExample(): Promise<void> {
  section('strict output', 'A refund decision validated against a TypeBox schema, with feedback on each retry.')
  const agent = Agent.create({
    provider: simulated({ seed: 7, faults: ['number-as-string', 'extra-field', 'datetime-tomorrow'] }),
    model: 'sim-1',
    name: 'billing',
  })
    .system('You decide refund requests. Output JSON.')
    .outputSchema(Refund)
    .reliability({ postDecide: strictOutputRules(3) })
    .build()
  traceAgent(agent)
  const refund = await agent.runTyped({ message: 'refund order #42 for $50' })
  console.log('  final value:', refund)
  console.log(`  persisted history: ${agent.history.length} messages, ephemeral ones: ${agent.history.filter((m) => m.ephemeral).length}`)
}

if (import.meta.main) await strictOutputExample()
