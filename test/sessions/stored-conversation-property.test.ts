import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isSessionFormatError, type Message, memorySessionStore, type SessionStore } from '../../src/index.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import { conversationArbitrary, corrupt, corruptionArbitrary } from './support/conversation-arbitraries.ts'
import { eachRawStore } from './support/raw-stores.ts'

/** PGlite answers a statement in about a millisecond when the machine is idle, tens when it is busy. */
const PROPERTY_TIMEOUT_MS = 180_000

let serial = 0
const nextId = (label: string): string => `${label}-${process.pid}-${++serial}`

/** Commits each exchange in turn and checks the load gives them back whole, in order, equal. */
async function roundTrips(store: SessionStore, exchanges: readonly Message[][]): Promise<void> {
  const id = nextId('round-trip')
  for (const [version, exchange] of exchanges.entries()) {
    expect(await store.append(id, { exchange, expectedVersion: version, onConflict: 'fail' })).toEqual({ committed: true, version: version + 1, staleBy: 0 })
  }
  expect(await store.load(id)).toEqual({ messages: exchanges.flat(), version: exchanges.length })
}

const ROLES = ['system', 'user', 'assistant', 'tool']
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** What a run can replay safely, stated apart from the library's check: known roles, text, well-formed calls, results of calls made. */
function replayable(messages: readonly unknown[]): boolean {
  const called = new Set<unknown>()
  return messages.every((m) => {
    if (!isObject(m) || !ROLES.includes(m['role'] as string) || typeof m['content'] !== 'string' || 'ephemeral' in m) return false
    const calls = m['toolCalls']
    if (calls !== undefined && !(Array.isArray(calls) && calls.every((c) => isObject(c) && typeof c['id'] === 'string' && typeof c['name'] === 'string')))
      return false
    for (const c of (calls ?? []) as { id: string }[]) called.add(c.id)
    return m['role'] !== 'tool' || called.has(m['toolCallId'])
  })
}

/** The stored text of each exchange, as every store writes it. */
const bodiesOf = (exchanges: readonly Message[][]): string[] => exchanges.map((m) => JSON.stringify({ f: 1, m }))

describe('a conversation the library writes', () => {
  it('loads back equal from the memory store, whatever its messages hold', async () => {
    const store = memorySessionStore()
    await fc.assert(
      fc.asyncProperty(conversationArbitrary, (exchanges) => roundTrips(store, exchanges)),
      { numRuns: 200 },
    )
  })

  it('loads back equal from a SQLite store, whatever its messages hold', async () => {
    const store = sqliteSessionStore({ path: ':memory:' })
    await fc.assert(
      fc.asyncProperty(conversationArbitrary, (exchanges) => roundTrips(store, exchanges)),
      { numRuns: 100 },
    )
    store.close()
  })
})

eachRawStore('A stored conversation', (backend, kind) => {
  const runs = kind === 'postgres' ? 15 : 50

  it(
    'the library wrote loads back equal',
    async () => {
      await fc.assert(
        fc.asyncProperty(conversationArbitrary, (exchanges) => roundTrips(backend().store, exchanges)),
        { numRuns: runs },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )

  it(
    'corrupted at random loads as written or is refused with a SessionFormatError, never another error, never an ephemeral message',
    async () => {
      const { store, write } = backend()
      await fc.assert(
        fc.asyncProperty(conversationArbitrary, fc.nat(), corruptionArbitrary, async (exchanges, which, corruption) => {
          const bodies = bodiesOf(exchanges)
          const index = which % bodies.length
          bodies[index] = corrupt(bodies[index] as string, corruption)
          const id = nextId(`corrupt-${kind}`)
          await write(id, bodies)
          const outcome = await store.load(id).then(
            (loaded) => ({ loaded }),
            (error: unknown) => ({ error }),
          )
          if ('error' in outcome) {
            expect(isSessionFormatError(outcome.error), String(outcome.error)).toBe(true)
            return
          }
          // Loaded: the records as they now are, and only what a run can replay (no ephemeral flag among it).
          const written = bodies.flatMap((body) => (JSON.parse(body) as { m: Message[] }).m)
          expect(outcome.loaded).toEqual({ messages: written, version: bodies.length })
          expect(replayable(outcome.loaded.messages)).toBe(true)
        }),
        { numRuns: runs * 3 },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )
})
