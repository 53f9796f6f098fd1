/**
 * Observing events: count validation failures per stage with `agent.on`, and watch the whole event
 * stream as an rxjs Observable.
 */
import { filter, map } from 'rxjs'
import { Type } from 'typebox'
import { Agent, strictOutputRules } from '../src/index.ts'
import { simulated } from '../src/providers/index.ts'
import { section, watch } from './trace.ts'

const Contact = Type.Object({ name: Type.String(), email: Type.String({ format: 'email' }), tags: Type.Array(Type.String()) })

export async function observeEventsExample(): Promise<void> {
  section('observing events', 'Metrics from agent.on, and the event stream as an rxjs Observable.')
  const agent = Agent.create({ provider: simulated({ seed: 11 }), model: 'sim-1' })
    .outputSchema(Contact)
    .reliability({ postDecide: strictOutputRules(4) })
    .build()
  watch(agent)

  const failuresByStage = new Map<string, number>()
  agent.on('validation_failed', (e) => failuresByStage.set(e.stage, (failuresByStage.get(e.stage) ?? 0) + 1))
  const sub = agent.events$
    .pipe(
      filter((e) => e.type === 'decision' || e.type === 'recovered'),
      map((e) => (e.type === 'decision' ? `decision ${e.decision} (${e.kind}) on attempt ${e.attempt}` : `recovered on attempt ${e.attempt}`)),
    )
    .subscribe((line) => console.log(`  events$: ${line}`))

  for (const message of ['add Ada Lovelace as a contact', 'add Alan Turing, tag him as vip']) {
    const result = await agent.runDetailed(message)
    console.log(`  "${message}" → ${result.attempts.length} attempt(s), ${result.usage.inputTokens + result.usage.outputTokens} tokens`)
  }
  sub.unsubscribe()
  console.log('  validation failures by stage:', Object.fromEntries(failuresByStage))
}

if (import.meta.main) await observeEventsExample()
