import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { isDurableRunError, memoryDurablePort } from '../../src/durable.ts'
import { createGate, isReliabilityFailFastError, ProviderError, retryTransient, strictOutputRules } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'

const Amount = Type.Object({ amount: Type.Integer() }, { additionalProperties: false })
const ask = { messages: [{ role: 'user' as const, content: 'how much?' }] }
const overloaded = (): ProviderError => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })

function gateOver(steps: readonly ScriptedStep[]) {
  const provider = scripted(steps)
  const gate = createGate({
    providers: provider,
    outputSchema: Amount,
    postDecide: [retryTransient({ maxRetries: 3, backoff: { initialMs: 1, maxMs: 1, jitter: 0 } }), ...strictOutputRules(4)],
  })
  return { provider, gate }
}

/** The journal of a finished run: a schema retry with feedback, a 503, then the answer. */
async function finishedJournal(): Promise<string[]> {
  const journal: string[] = []
  const { gate } = gateOver(['{"amount": "five"}', overloaded(), '{"amount": 5}'])
  await gate.run(ask, { durable: memoryDurablePort({ runId: 'r', journal }) })
  return journal
}

/** Replays `journal` on a fresh gate whose provider would answer `fresh`: the refusal's `DurableRunError` kind, or what it answered. */
async function replay(journal: string[], fresh: ScriptedStep[] = ['{"amount": 99}', '{"amount": 99}', '{"amount": 99}', '{"amount": 99}']) {
  const { provider, gate } = gateOver(fresh)
  const settled = await gate.run(ask, { durable: memoryDurablePort({ runId: 'r', journal }) }).then(
    (result) => ({ value: result.value as unknown, feedback: result.attempts.map((a) => a.feedbackSent) }),
    (error: unknown) => error,
  )
  if (isReliabilityFailFastError(settled)) {
    expect(settled.kind).toBe('durable-journal')
    const cause = settled.cause
    expect(isDurableRunError(cause)).toBe(true)
    return { refused: (cause as { kind: string }).kind, calls: provider.calls }
  }
  return { settled, calls: provider.calls }
}

describe('A durable journal edited between runs', () => {
  it('names the steps it holds', async () => {
    const names = (await finishedJournal()).map((e) => (JSON.parse(e) as { name: string }).name)
    expect(names).toEqual(['attempt:gate:1', 'attempt:gate:2', 'wait:gate:2', 'attempt:gate:3'])
  })

  it('refuses two entries swapped as a divergence, calling no provider', async () => {
    const journal = await finishedJournal()
    ;[journal[0], journal[1]] = [journal[1] as string, journal[0] as string]
    expect(await replay(journal)).toEqual({ refused: 'divergence', calls: 0 })
  })

  it('refuses an entry duplicated in place of the next as a divergence', async () => {
    const journal = await finishedJournal()
    journal[1] = journal[0] as string
    expect(await replay(journal)).toEqual({ refused: 'divergence', calls: 0 })
  })

  it('refuses a sleep entry swapped for an attempt entry as a divergence', async () => {
    const journal = await finishedJournal()
    ;[journal[2], journal[3]] = [journal[3] as string, journal[2] as string]
    expect(await replay(journal)).toMatchObject({ refused: 'divergence' })
  })

  it('goes on from a truncated journal, calling the provider only for the steps past its end', async () => {
    const journal = (await finishedJournal()).slice(0, 1)
    const out = await replay(journal, [overloaded(), '{"amount": 5}'])
    expect(out).toMatchObject({ calls: 2, settled: { value: { amount: 5 } } })
  })

  it('refuses a prototype-polluting entry as corrupt, and pollutes nothing', async () => {
    const journal = await finishedJournal()
    const entry = JSON.parse(journal[0] as string) as Record<string, unknown>
    journal[0] = JSON.stringify(entry).replace('{"v":1', '{"__proto__":{"polluted":true},"v":1')
    expect(await replay(journal)).toEqual({ refused: 'corrupt-entry', calls: 0 })
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('refuses a prototype-polluting key nested in the journaled response as corrupt', async () => {
    const journal = await finishedJournal()
    journal[0] = (journal[0] as string).replace('"response":{', '"response":{"constructor":{"prototype":{"polluted":true}},')
    expect(await replay(journal)).toEqual({ refused: 'corrupt-entry', calls: 0 })
  })

  it('refuses an attempt entry whose value is another step kind (a start clock) as corrupt', async () => {
    const journal = await finishedJournal()
    journal[0] = JSON.stringify({ v: 1, seq: 0, name: 'attempt:gate:1', ok: true, value: Date.now() })
    expect(await replay(journal)).toEqual({ refused: 'corrupt-entry', calls: 0 })
  })

  it('refuses a journaled failure message longer than the port ever writes as corrupt (never replays it as feedback)', async () => {
    const journal = await finishedJournal()
    const entry = JSON.parse(journal[1] as string) as { value: { failure: { message: string } } }
    entry.value.failure.message = 'x'.repeat(2_000_000)
    journal[1] = JSON.stringify(entry)
    expect(await replay(journal)).toEqual({ refused: 'corrupt-entry', calls: 0 })
    const plain = JSON.parse(journal[1] as string) as Record<string, unknown>
    plain['ok'] = false
    plain['error'] = { class: 'Error', name: 'Error', message: 'y'.repeat(5000) }
    journal[1] = JSON.stringify(plain)
    expect(await replay(journal)).toEqual({ refused: 'corrupt-entry', calls: 0 })
  })

  it('refuses a journaled failure of a kind that is no error kind, and one whose status is no HTTP status, as corrupt', async () => {
    for (const edit of [{ kind: 'shutdown-everything' }, { status: 1e6 }, { status: 503.5 }, { retryAfterMs: -1 }, { message: 42 }, { code: 7 }]) {
      const journal = await finishedJournal()
      const entry = JSON.parse(journal[1] as string) as { value: { failure: Record<string, unknown> } }
      Object.assign(entry.value.failure, edit)
      journal[1] = JSON.stringify(entry)
      expect(await replay(journal), JSON.stringify(edit)).toEqual({ refused: 'corrupt-entry', calls: 0 })
    }
  })

  it('refuses an entry that is not JSON, an array, null or of version 2 as corrupt', async () => {
    for (const bad of ['{not json', '[]', 'null', JSON.stringify({ v: 2, seq: 0, name: 'attempt:gate:1', ok: true, value: 1 })]) {
      const journal = await finishedJournal()
      journal[0] = bad
      expect(await replay(journal), bad).toEqual({ refused: 'corrupt-entry', calls: 0 })
    }
  })

  it('refuses a replay that now takes a deadline the journal has no start for (and the reverse) as a divergence', async () => {
    const journal = await finishedJournal()
    const provider = scripted(['{"amount": 99}'])
    const gate = createGate({ providers: provider, outputSchema: Amount, runTimeoutMs: 60_000 })
    const error = await gate.run(ask, { durable: memoryDurablePort({ runId: 'r', journal }) }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) ? [error.kind, isDurableRunError(error.cause) && error.cause.kind] : error).toEqual([
      'durable-journal',
      'divergence',
    ])
    expect(provider.calls).toBe(0)
    const timed: string[] = []
    await createGate({ providers: scripted(['{"amount": 1}']), outputSchema: Amount, runTimeoutMs: 60_000 }).run(ask, {
      durable: memoryDurablePort({ runId: 't', journal: timed }),
    })
    const plain = scripted(['{"amount": 99}'])
    const again = await createGate({ providers: plain, outputSchema: Amount })
      .run(ask, { durable: memoryDurablePort({ runId: 't', journal: timed }) })
      .catch((e: unknown) => e)
    expect(isReliabilityFailFastError(again) ? [again.kind, isDurableRunError(again.cause) && again.cause.kind] : again).toEqual([
      'durable-journal',
      'divergence',
    ])
    expect(plain.calls).toBe(0)
  })

  it('refuses another run’s journal (the same question, another run id) as a divergence, calling no provider', async () => {
    const journal = await finishedJournal()
    const { provider, gate } = gateOver(['{"amount": 99}'])
    const error = await gate.run(ask, { durable: memoryDurablePort({ runId: 'another-run', journal }) }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) ? [error.kind, isDurableRunError(error.cause) && error.cause.kind] : error).toEqual([
      'durable-journal',
      'divergence',
    ])
    expect(provider.calls).toBe(0)
    // One entry of another run spliced in is refused too, and a run id that is no string is no entry the port wrote.
    const spliced = await finishedJournal()
    spliced[1] = (spliced[1] as string).replace('"runId":"r"', '"runId":"someone-else"')
    expect(await replay(spliced)).toEqual({ refused: 'divergence', calls: 0 })
    const mangled = await finishedJournal()
    mangled[0] = (mangled[0] as string).replace('"runId":"r"', '"runId":7')
    expect(await replay(mangled)).toEqual({ refused: 'corrupt-entry', calls: 0 })
  })

  it('bounds what a refusal quotes of an edited entry: a megabyte step name, version, run id, provider, kind or error name', async () => {
    const big = 'x'.repeat(1_000_000)
    const response = { content: '', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
    const entries = [
      { v: 1, seq: 0, name: big, ok: true, value: 1 },
      { v: big, seq: 0, name: 'attempt:gate:1', ok: true, value: 1 },
      { v: 1, runId: big, seq: 0, name: 'attempt:gate:1', ok: true, value: 1 },
      { v: 1, seq: 0, name: 'attempt:gate:1', ok: true, value: { v: 1, provider: big, response } },
      { v: 1, seq: 0, name: 'attempt:gate:1', ok: true, value: { v: 1, provider: 'scripted', failure: { kind: big, message: 'm' } } },
      { v: 1, seq: 0, name: 'attempt:gate:1', ok: false, error: { class: 'ProviderError', kind: big, message: 'm' } },
      { v: 1, seq: 0, name: 'attempt:gate:1', ok: false, error: { class: 'Error', name: big, message: 'm' } },
    ]
    for (const entry of entries) {
      const { provider, gate } = gateOver(['{"amount": 1}'])
      const error = await gate.run(ask, { durable: memoryDurablePort({ runId: 'r', journal: [JSON.stringify(entry)] }) }).catch((e: unknown) => e)
      expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('durable-journal')
      expect((error as Error).message.length).toBeLessThan(1000)
      expect(((error as Error).cause as Error).message.length).toBeLessThan(1000)
      expect(provider.calls).toBe(0)
    }
  })

  it('refuses a memoryDurablePort option that is misspelt (jurnal) rather than running on a fresh journal', () => {
    expect(() => memoryDurablePort({ runId: 'r', jurnal: [] } as never)).toThrow(/journal/)
    expect(() => memoryDurablePort({ runId: 'r', journal: 'not an array' } as never)).toThrow(TypeError)
  })

  it('replays the same retry feedback as the first run from an untouched journal', async () => {
    const journal = await finishedJournal()
    const out = await replay(journal)
    expect(out.calls).toBe(0)
    expect((out as { settled: { feedback: unknown[] } }).settled.feedback[0]).toContain('amount')
  })
})
