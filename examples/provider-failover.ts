/**
 * Provider failover: the primary provider is overloaded (HTTP 529); a `retry-other` rule really
 * moves the run to the backup provider and its own model.
 */
import { Type } from 'typebox'
import { Agent, ProviderError, strictOutputRules, type Provider } from '../src/index.ts'
import { simulated } from '../src/providers/index.ts'
import { section, traceAgent } from './trace.ts'

const Summary = Type.Object({ headline: Type.String(), sentiment: Type.Union([Type.Literal('positive'), Type.Literal('neutral'), Type.Literal('negative')]) })

const overloaded: Provider = {
  name: 'primary',
  complete: async () => {
    throw new ProviderError('Overloaded', { kind: 'http-5xx', status: 529, provider: 'primary' })
  },
}

export async function failoverExample(): Promise<void> {
  section('provider failover', 'The primary answers 529; retry-other switches to the backup provider.')
  const agent = Agent.create({ provider: overloaded, model: 'big-1', name: 'summarizer' })
    .outputSchema(Summary)
    .reliability({
      providers: [
        { provider: overloaded, model: 'big-1' },
        { provider: simulated({ seed: 5, faults: [], name: 'backup' }), model: 'small-1' },
      ],
      postDecide: [
        {
          when: (s) => (s.errorKind === 'http-5xx' || s.errorKind === 'rate-limit') && s.canSwitchProvider,
          then: 'retry-other',
          kind: 'failover',
          label: 'fail over on overload',
        },
        ...strictOutputRules(3),
      ],
    })
    .build()
  traceAgent(agent)
  const result = await agent.runDetailed('summarise: the launch went well and customers are happy')
  console.log(`  answered by ${result.provider}:`, result.value)
  console.log('  attempts:', result.attempts.map((a) => `${a.attempt}:${a.provider}:${a.status}`).join(', '))
}

if (import.meta.main) await failoverExample()
