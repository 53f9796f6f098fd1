import { Type, type Static } from 'typebox'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { Agent, type AgentBuilder } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const Refund = Type.Object({ amount: Type.Number() })
type Refund = Static<typeof Refund>

describe('Agent builder types', () => {
  it('builds an Agent<string> when there is no output schema', async () => {
    const builder = Agent.create({ provider: scripted(['hello']) })
    expectTypeOf(builder).toEqualTypeOf<AgentBuilder<string>>()
    const agent = builder.system('Be brief.').build()
    expectTypeOf(agent).toEqualTypeOf<Agent<string>>()
    expect(agent).toBeInstanceOf(Agent)
    expect(await agent.runTyped('hi')).toBe('hello')
  })

  it("builds an Agent of the output schema's type, whatever the order of the other calls", async () => {
    const agent = Agent.create({ provider: scripted(['{"amount":5}']) })
      .system('Output JSON.')
      .outputSchema(Refund)
      .reliability({})
      .build()
    expectTypeOf(agent).toEqualTypeOf<Agent<Refund>>()
    const refund = await agent.runTyped('refund')
    expectTypeOf(refund).toEqualTypeOf<Refund>()
    expect(refund).toEqual({ amount: 5 })
  })

  it('lets a user name the builder AgentBuilder<T> and still build an Agent<T>', () => {
    const builder: AgentBuilder<Refund> = Agent.create({ provider: scripted([]) }).outputSchema(Refund)
    expectTypeOf(builder.build()).toEqualTypeOf<Agent<Refund>>()
    expectTypeOf(builder.build()).not.toEqualTypeOf<Agent<string>>()
    expect(builder.build()).toBeInstanceOf(Agent)
  })
})
