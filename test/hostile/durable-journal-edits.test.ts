import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { memoryDurablePort } from '../../src/durable.ts'
import { Agent, isReliabilityFailFastError, memorySessionStore, strictOutputRules, tool } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { call, turn } from '../agent/tool-fixtures.ts'

const Amount = Type.Object({ amount: Type.Integer() })
const look = tool({ name: 'look', description: 'Looks it up', input: Type.Object({ q: Type.String() }), execute: ({ q }) => ({ found: q }) })
// A tool turn, an answer the schema refuses (a retry with feedback), then the answer.
const script = (): ScriptedStep[] => [turn(call('look', { q: 'a' }, 'c1')), '{"amount": "x"}', '{"amount": 5}']

async function runOn(journal: string[]): Promise<unknown> {
  const agent = Agent.create({ provider: scripted(script()), sessions: memorySessionStore() })
    .tool(look)
    .outputSchema(Amount)
    .reliability({ runTimeoutMs: 60_000, postDecide: strictOutputRules(3) })
    .build()
  const session = await agent.session('s')
  return session.runDetailed('how much?', { durable: memoryDurablePort({ runId: 'r', journal }) }).then(
    (result) => result,
    (error: unknown) => error,
  )
}

type Edit =
  | { readonly op: 'truncate' | 'duplicate'; readonly at: number }
  | { readonly op: 'swap'; readonly at: number; readonly other: number }
  | { readonly op: 'field'; readonly at: number; readonly path: readonly string[]; readonly value: unknown }

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constantFrom('truncate' as const, 'duplicate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), at: fc.nat(), other: fc.nat() }),
  fc.record({
    op: fc.constant('field' as const),
    at: fc.nat(),
    path: fc.array(
      fc.oneof(fc.constantFrom('v', 'seq', 'name', 'ok', 'value', 'error', 'runId', 'response', 'failure', 'resultJson'), fc.string({ maxLength: 6 })),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    value: fc.jsonValue(),
  }),
)

/** `journal` with `e` applied (a field set at a path of one entry, made of objects where missing). */
function edited(journal: readonly string[], e: Edit): string[] {
  const out = [...journal]
  if (out.length === 0) return out
  const i = e.at % out.length
  if (e.op === 'truncate') out.length = i
  else if (e.op === 'duplicate') out.splice(i, 0, out[i] as string)
  else if (e.op === 'swap') [out[i], out[e.other % out.length]] = [out[e.other % out.length] as string, out[i] as string]
  else if (e.op === 'field') {
    const entry = JSON.parse(out[i] as string) as Record<string, unknown>
    let at: Record<string, unknown> = entry
    for (const key of e.path.slice(0, -1)) {
      const next = at[key]
      at = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : (at[key] = {})
    }
    Object.defineProperty(at, e.path.at(-1) as string, { value: e.value, enumerable: true, writable: true, configurable: true })
    out[i] = JSON.stringify(entry)
  }
  return out
}

describe('A durable agent run’s journal edited at random', () => {
  it('replays to an answer or fails fast typed, whatever was truncated, swapped, duplicated or rewritten, and pollutes nothing', async () => {
    const journal: string[] = []
    const first = await runOn(journal)
    expect((first as { value?: unknown }).value).toEqual({ amount: 5 })
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (edits) => {
        const replay = await runOn(edits.reduce(edited, journal))
        if (!isReliabilityFailFastError(replay)) expect(replay).toMatchObject({ value: expect.anything(), exchange: expect.any(Array) })
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
      }),
      { numRuns: 150 },
    )
  }, 60_000)
})
