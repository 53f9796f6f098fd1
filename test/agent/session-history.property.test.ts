import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Agent, type Message, ProviderError } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'

/** One step of a session's life: a run read through one projection (answered, or failing at its provider), or a read of its history. */
type Op = { readonly t: 'run'; readonly via: 'run' | 'runTyped' | 'runDetailed'; readonly fails: boolean; readonly n: number } | { readonly t: 'read' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    t: fc.constant('run' as const),
    via: fc.constantFrom('run' as const, 'runTyped' as const, 'runDetailed' as const),
    fails: fc.boolean(),
    n: fc.nat(999),
  }),
  fc.constant({ t: 'read' as const }),
)

// A provider error that is not retried: the run fails at once, with nothing accepted.
const refused = (): ProviderError => new ProviderError('401 refused', { kind: 'auth', status: 401, provider: 'scripted' })

describe('Session history (property)', () => {
  it('is the exchanges of the answered runs in order, whichever projection read them; every read is frozen and never changes afterwards', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 12 }), async (ops) => {
        const steps: ScriptedStep[] = ops.filter((op) => op.t === 'run').map((op) => (op.fails ? refused() : `answer ${op.n}`))
        const session = Agent.create({ provider: scripted(steps) })
          .build()
          .session()
        const expected: Message[] = []
        const reads: { readonly snapshot: readonly Message[]; readonly copy: readonly Message[] }[] = []
        for (const op of ops) {
          if (op.t === 'read') {
            const snapshot = session.history
            expect(Object.isFrozen(snapshot)).toBe(true)
            expect(snapshot.every((m) => Object.isFrozen(m))).toBe(true)
            reads.push({ snapshot, copy: snapshot.map((m) => ({ ...m })) })
            continue
          }
          const input = `question ${op.n}`
          const run = op.via === 'run' ? session.run(input) : op.via === 'runTyped' ? session.runTyped(input) : session.runDetailed(input)
          if (op.fails) {
            await expect(run).rejects.toThrow()
            continue
          }
          const answer = await run
          if (op.via === 'runDetailed') {
            const { exchange } = answer as Awaited<ReturnType<typeof session.runDetailed>>
            expect(Object.isFrozen(exchange)).toBe(true)
            expect(exchange).toEqual([
              { role: 'user', content: input },
              { role: 'assistant', content: `answer ${op.n}` },
            ])
          } else expect(answer).toBe(`answer ${op.n}`)
          expected.push({ role: 'user', content: input }, { role: 'assistant', content: `answer ${op.n}` })
        }
        expect(session.history).toEqual(expected)
        for (const { snapshot, copy } of reads) expect(snapshot).toEqual(copy)
      }),
      { numRuns: 60 },
    )
  })
})
