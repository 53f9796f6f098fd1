/**
 * The gate inside a LangChain.js v1 agent, offline: `createAgent` with `reliabilityMiddleware`, a
 * weather tool, and LangChain's own scripted model (`fakeModel()` from `@langchain/core/testing`).
 * The model first calls the tool with `days: "two"`: the call is answered with feedback and the tool
 * never runs on it; then it answers in prose where JSON was asked: the gate re-asks with an
 * ephemeral tail, and only the accepted answer enters the agent's state.
 */
import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { createAgent, tool } from 'langchain'
import { Type } from 'typebox'
import * as z from 'zod'
import { strictOutputRules } from '../src/index.ts'
import { reliabilityMiddleware } from '../src/integrations/langchain.ts'
import { section } from './trace.ts'

const ran: unknown[] = []
const getWeather = tool(
  async (args: { city: string; days: number }) => {
    ran.push(args)
    return `${args.city}: 21°C for ${args.days} days`
  },
  { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string(), days: z.number().int().min(1).max(7) }) },
)

export async function langchainExample(): Promise<void> {
  section('langchain', 'A LangChain createAgent with the gate as middleware: tool arguments and the final answer validated.')
  const model = fakeModel()
    .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 'two' }, id: 'c1' }])
    .respondWithTools([{ name: 'get_weather', args: { city: 'Oslo', days: 2 }, id: 'c2' }])
    .respond(new AIMessage('Oslo will be mild, about 21 degrees.'))
    .respond(new AIMessage('{"city":"Oslo","celsius":21}'))
  const gate = reliabilityMiddleware({ outputSchema: Type.Object({ city: Type.String(), celsius: Type.Number() }), postDecide: strictOutputRules(3) })
  gate.on('validation_failed', (e) => console.log(`  validation_failed stage=${e.stage} ${e.message.split('\n')[0]}`))
  const agent = createAgent({ model, tools: [getWeather], middleware: [gate] })
  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Weather in Oslo for two days, as JSON' }] })
  console.log(`  the tool ran on: ${JSON.stringify(ran)}`)
  for (const m of messages) {
    const calls = m instanceof AIMessage ? (m.tool_calls ?? []) : []
    const shown = calls.length > 0 ? calls.map((c) => `calls ${c.name}(${JSON.stringify(c.args)})`).join(', ') : m.text.split('\n')[0]
    console.log(`  state ${m.type}: ${shown}`)
  }
  console.log(`  model calls: ${model.callCount}`)
}

if (import.meta.main) await langchainExample()
