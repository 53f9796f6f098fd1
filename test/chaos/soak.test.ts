import { Type } from 'typebox'
import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, isReliabilityFailFastError, retryTransient, strictOutputRules, tool, type Message } from '../../src/index.ts'
import type { Session } from '../../src/agent/index.ts'
import { EventHub } from '../../src/events/index.ts'
import { chaosProvider, SESSION } from './chaos-provider.ts'
import { fullCollector } from '../support/collector.ts'

const SESSIONS = 1_000
const RUNS_PER_SESSION = 2
const SEED = 20_260_503
// Generous on purpose: the soak asserts that nothing accumulates, not how little memory it takes.
const HEAP_GROWTH_BOUND_BYTES = 48 * 1024 * 1024

const Answer = Type.Object({ session: Type.String(), n: Type.Integer() }, { additionalProperties: false })

/** Every session token a message mentions (its text, tool calls and results). */
const tokensOf = (m: Message): string[] => JSON.stringify(m).match(new RegExp(SESSION.source, 'g')) ?? []

afterEach(() => {
  vi.restoreAllMocks()
})

describe('chaos soak', () => {
  it(`settles ${SESSIONS} concurrent sessions over a seeded chaos provider with no leak, no cross-talk and no ephemeral message kept`, {
    timeout: 60_000,
  }, async () => {
    // The heap bound is generous: without an exposed gc the soak still runs.
    const gc = fullCollector() ?? (() => undefined)
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    process.on('uncaughtException', onUnhandled)

    const provider = chaosProvider(SEED)
    const lookup = tool({
      name: 'lookup',
      description: 'Looks up the data of a session',
      input: Type.Object({ session: Type.String() }, { additionalProperties: false }),
      execute: async ({ session }, { signal }) => {
        await new Promise((resolve) => setTimeout(resolve, 1))
        signal?.throwIfAborted()
        return { session, data: `data of ${session}` }
      },
    })
    const onSpy = vi.spyOn(EventHub.prototype, 'on')
    const agent = Agent.create({ provider, maxIterations: 6 })
      .outputSchema(Answer)
      .tool(lookup)
      .reliability({ timeoutMs: 150, maxAttempts: 12, postDecide: [retryTransient({ maxRetries: 6, backoff: () => 1 }), ...strictOutputRules(4)] })
      .build()
    agent.on('retry', () => undefined)
    const hub = onSpy.mock.contexts[0] as EventHub
    onSpy.mockRestore()
    const listenersBefore = hub.listenerCount
    const parent = new AbortController()

    const outcomes: Record<string, number> = {}
    let streamedToolCalls = 0
    let settled = 0
    let started = 0
    const sessions: Session<{ session: string; n: number }>[] = []
    const expectedLength: number[] = []

    async function converse(i: number): Promise<void> {
      const session = agent.session()
      sessions[i] = session
      expectedLength[i] = 0
      for (let run = 0; run < RUNS_PER_SESSION; run++) {
        started++
        // One session in twenty is cancelled mid-flight by its own controller.
        const own = i % 20 === 7 ? new AbortController() : undefined
        if (own !== undefined) setTimeout(() => own.abort(), 3 + (i % 11))
        const signal = own?.signal ?? parent.signal
        const input = `S${i}: request ${run}`
        try {
          if (i % 5 === 0) {
            // A streamed run is the agent's run: its tool turns are committed too.
            const r = await session.stream(input, { mode: 'buffer', signal }).result
            expect(r.value.session).toBe(`S${i}`)
            expectedLength[i] = (expectedLength[i] ?? 0) + r.exchange.length
            if (r.functionsCalled.length > 0) streamedToolCalls++
          } else {
            const r = await session.runDetailed(input, { signal })
            expect(r.value.session).toBe(`S${i}`)
            expectedLength[i] = (expectedLength[i] ?? 0) + r.exchange.length
          }
          outcomes['ok'] = (outcomes['ok'] ?? 0) + 1
        } catch (error) {
          // Every failure is typed, whatever the provider, the tool or the abort did.
          const kind = isReliabilityFailFastError(error) ? error.kind : `untyped: ${String(error)}`
          outcomes[kind] = (outcomes[kind] ?? 0) + 1
        } finally {
          settled++
        }
      }
    }

    const heapBefore = (gc(), process.memoryUsage().heapUsed)
    const all = Promise.all(Array.from({ length: SESSIONS }, (_, i) => converse(i)))
    let watchdog: ReturnType<typeof setTimeout> | undefined
    await Promise.race([all, new Promise((resolve) => (watchdog = setTimeout(resolve, 45_000)))])
    clearTimeout(watchdog)

    console.log(
      `[chaos soak] ${SESSIONS} sessions x ${RUNS_PER_SESSION} runs, seed ${SEED}: outcomes ${JSON.stringify(outcomes)}, provider acts ${JSON.stringify(provider.acts)}`,
    )
    expect(settled).toBe(started)
    expect(started).toBe(SESSIONS * RUNS_PER_SESSION)
    expect(Object.keys(outcomes).filter((k) => k.startsWith('untyped'))).toEqual([])
    expect(outcomes['ok']).toBeGreaterThan(SESSIONS)
    // Streamed runs call the agent's tools, as runDetailed does.
    expect(streamedToolCalls).toBeGreaterThan(0)
    for (const [i, session] of sessions.entries()) {
      const history = session.history
      expect(history.filter((m) => m.ephemeral === true)).toEqual([])
      expect(history.flatMap(tokensOf).filter((t) => t !== `S${i}`)).toEqual([])
      expect(history.length).toBe(expectedLength[i])
    }
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)
    expect(hub.listenerCount).toBe(listenersBefore)
    // Let timers of abandoned work (hung calls end on their deadline) run out before measuring.
    await new Promise((resolve) => setTimeout(resolve, 100))
    sessions.length = 0
    gc()
    const growth = process.memoryUsage().heapUsed - heapBefore
    console.log(`[chaos soak] heap growth after gc: ${(growth / 1024 / 1024).toFixed(1)} MiB (bound ${HEAP_GROWTH_BOUND_BYTES / 1024 / 1024} MiB)`)
    expect(growth).toBeLessThan(HEAP_GROWTH_BOUND_BYTES)
    process.off('unhandledRejection', onUnhandled)
    process.off('uncaughtException', onUnhandled)
    expect(unhandled).toEqual([])
  })
})
