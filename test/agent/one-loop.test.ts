import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { call, turn } from './tool-fixtures.ts'
import { heldProvider } from '../support/held-provider.ts'
import { GATE_EVENT_NAMES } from '../../src/events/event-names.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

const STEPS: Record<string, () => ScriptedStep> = {
  valid: () => validRefundJson,
  fenced: () => `\`\`\`json\n${validRefundJson}\n\`\`\``,
  invalid: () => '{"orderId": "42", "action": "refund", "amount": "USD 50"}',
  prose: () => 'no idea',
  toolCall: () => turn(call('lookup', { id: 1 })),
  failure: () => new Error('socket hang up'),
}
const NAMES = Object.keys(STEPS)

function agentOver(steps: readonly string[], system: string | undefined) {
  const provider = scripted(
    steps.map((n) => (STEPS[n] as () => ScriptedStep)()),
    { name: 'p' },
  )
  let builder = Agent.create({ provider, model: 'm', name: 'billing' })
    .outputSchema(Refund)
    .reliability({ postDecide: strictOutputRules(3) })
  if (system !== undefined) builder = builder.system(system)
  return { agent: builder.build(), provider }
}

/** Two runs on one session (the second sees the first's history), each settled to what it gave. */
async function twoRuns(steps: readonly string[], system: string | undefined, watched: boolean) {
  const { agent, provider } = agentOver(steps, system)
  // Listeners on every event of the agent: what a run gives must not depend on who listens.
  if (watched) for (const name of GATE_EVENT_NAMES) agent.on(name, () => {})
  const session = agent.session()
  const outcomes: unknown[] = []
  for (const [i, input] of ['refund order 42', 'and order 43?'].entries()) {
    try {
      outcomes.push({ ok: await session.runDetailed(input, { runId: `run_${i}`, metadata: { tenant: 't' } }) })
    } catch (error) {
      outcomes.push(isReliabilityFailFastError(error) ? { failed: [error.kind, error.message, error.attempts.length] } : { thrown: String(error) })
    }
  }
  // Latency depends on the clock; everything else must match.
  return JSON.parse(
    JSON.stringify({ outcomes, history: session.history, asked: provider.requests }, (k, v) => (k === 'latencyMs' || k === 'elapsedMs' ? 0 : v)),
  )
}

describe('one agent loop: what is attached never changes what a run gives', () => {
  it('a valid first answer: its result, commit and requests are the same whether anyone listens or not', async () => {
    const quiet = await twoRuns(['valid', 'valid'], 'You decide refunds.', false)
    const watched = await twoRuns(['valid', 'valid'], 'You decide refunds.', true)
    expect(quiet).toEqual(watched)
    expect(quiet.outcomes[0].ok.value).toEqual(validRefund)
    expect(quiet.outcomes[0].ok.turns).toBe(1)
    expect(quiet.history).toHaveLength(4)
  })

  it('property: on any script (retries, failures, tool calls the agent never offered), watched and unwatched runs agree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 6 }), fc.constantFrom(undefined, 'sys'), async (steps, system) => {
        expect(await twoRuns(steps, system, false)).toEqual(await twoRuns(steps, system, true))
      }),
      { numRuns: 120 },
    )
  })

  it('runTyped and run project the same result', async () => {
    const { agent } = agentOver(['valid', 'valid'], undefined)
    await expect(agent.runTyped('refund')).resolves.toEqual(validRefund)
    await expect(agent.run('again')).resolves.toBe(validRefundJson)
    expect(agent.history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
  })

  it('an agent_run_end listener attached while the turn runs hears the run end', async () => {
    const { provider, release } = heldProvider(validRefundJson)
    const agent = Agent.create({ provider, name: 'billing' }).outputSchema(Refund).build()
    const pending = agent.runTyped('refund', { metadata: { tenant: 'acme' } })
    const ends: unknown[] = []
    agent.on('agent_run_end', (e) => ends.push(e))
    release()
    await expect(pending).resolves.toEqual(validRefund)
    expect(ends).toEqual([expect.objectContaining({ agent: 'billing', outcome: 'ok', turns: 1, turn: 1, metadata: { tenant: 'acme' }, attempts: 1 })])
  })

  it('a failed run leaves the history as it was and rejects with the gate’s own error', async () => {
    const { agent } = agentOver(['prose', 'prose', 'prose'], undefined)
    const error = await agent.runTyped('refund').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    // The gate's retries are on the error.
    expect((error as { attempts: unknown[] }).attempts.length).toBeGreaterThan(1)
    expect(agent.history).toEqual([])
  })
})
