/**
 * Stuck-loop detection: a model that repeats the same mistake whatever the feedback says. The gate
 * stops after the second identical failure instead of paying for retries that cannot help.
 */
import { Type } from 'typebox'
import { Agent, isReliabilityFailFastError, strictOutputRules } from '../src/index.ts'
import { simulated } from '../src/providers/index.ts'
import { section, traceAgent } from './trace.ts'

const Ticket = Type.Object({ title: Type.String(), priority: Type.Integer({ minimum: 1, maximum: 5 }) }, { additionalProperties: false })

export async function stuckLoopExample(): Promise<void> {
  section('stuck-loop detection', 'The model ignores feedback; strictOutputRules(5) still fails fast after 2 identical failures (its stuckAfter default).')
  const agent = Agent.create({ provider: simulated({ seed: 3, faults: ['number-as-string'], ignoreFeedback: true }), model: 'sim-1', name: 'triage' })
    .system('Turn the user message into a ticket. Output JSON.')
    .outputSchema(Ticket)
    .reliability({ postDecide: strictOutputRules(5) })
    .build()
  traceAgent(agent)
  try {
    await agent.runTyped('the printer on floor 3 is on fire')
  } catch (error) {
    if (!isReliabilityFailFastError(error)) throw error
    console.log(`  caught ReliabilityFailFastError kind=${error.kind} after ${error.attempts.length} provider calls`)
    console.log(`  history untouched: ${agent.history.length} messages`)
  }
}

if (import.meta.main) await stuckLoopExample()
