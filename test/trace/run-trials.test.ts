import fc from 'fast-check'
import { Type } from 'typebox'
import { beforeAll, describe, expect, it } from 'vitest'
import { ProviderError, strictOutputRules } from '../../src/index.ts'
import { scripted, simulated } from '../../src/providers/index.ts'
import { runTrials, type TraceRecord } from '../../src/trace/index.ts'
import { recordCalls } from './support/record-calls.ts'

const Schema = Type.Object({ n: Type.Integer() })
const CONFIG = { outputSchema: Schema, postDecide: strictOutputRules(3) }
let records: readonly TraceRecord[]

beforeAll(async () => {
  // Three recorded cases; what they were answered does not matter to trials, only that they are cases.
  records = (await recordCalls({ providers: ['p'], ...CONFIG }, [{ p: ['{"n": 1}'] }, { p: ['{"n": 2}'] }, { p: ['{"n": 3}'] }])).records
})

describe('runTrials', () => {
  it('runs every case k times on fresh providers and counts the attempts each success took', async () => {
    const report = await runTrials(records, {
      config: CONFIG,
      trials: 4,
      providers: (trial) => scripted(trial % 2 === 0 ? ['{"n": 1}'] : ['nope', '{"n": 1}']),
    })
    expect(report.cases).toHaveLength(3)
    for (const c of report.cases)
      expect(c).toMatchObject({ trials: 4, succeeded: 4, passAll: true, passAny: true, attemptsToSuccess: { 1: 2, 2: 2 }, failures: {} })
    expect(report).toMatchObject({ trials: 4, passAll: 1, passAny: 1, successRate: 1, attemptsToSuccess: { 1: 6, 2: 6 } })
  })

  it('tells pass^k from pass@k when some trials fail, with the failures by kind', async () => {
    const report = await runTrials(records, {
      config: CONFIG,
      trials: 3,
      providers: (trial, call) => scripted(trial === 3 && call.runId !== 'call-0' ? [new ProviderError('down', { kind: 'auth', status: 401 })] : ['{"n": 1}']),
    })
    expect(report.cases.map((c) => [c.succeeded, c.passAll, c.passAny])).toEqual([
      [3, true, true],
      [2, false, true],
      [2, false, true],
    ])
    expect(report.cases[1]?.failures).toEqual({ auth: 1 })
    expect(report.passAll).toBeCloseTo(1 / 3)
    expect(report.passAny).toBe(1)
    expect(report.successRate).toBeCloseTo(7 / 9)
  })

  it('gives the same report twice on a seeded simulated provider, pass^k never above pass@k', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 1000 }), async (k, base) => {
        const options = { config: CONFIG, trials: k, providers: (trial: number) => simulated({ seed: base + trial }) }
        const first = await runTrials(records, options)
        expect(await runTrials(records, options)).toEqual(first)
        expect(first.passAll).toBeLessThanOrEqual(first.passAny)
        for (const c of first.cases) expect(Object.values(c.attemptsToSuccess).reduce((a, b) => a + b, 0)).toBe(c.succeeded)
      }),
      { numRuns: 15, seed: 3203 },
    )
  })

  it('refuses unknown options with "did you mean", and trials out of range', async () => {
    const providers = () => scripted(['{"n": 1}'])
    await expect(runTrials(records, { config: CONFIG, trials: 2, provider: providers } as never)).rejects.toThrow(/did you mean "providers"/)
    await expect(runTrials(records, { config: CONFIG, trials: 0, providers })).rejects.toThrow(RangeError)
    await expect(runTrials(records, { config: CONFIG, trials: 2, providers: () => 'nope' } as never)).rejects.toThrow(/must return a provider/)
  })

  it('rejects naming the case when the configuration function throws or returns no configuration', async () => {
    const providers = () => scripted(['{"n": 1}'])
    const run = (config: unknown) => runTrials(records, { config: config as never, trials: 1, providers })
    await expect(run(() => undefined)).rejects.toThrow(/^runTrials: config\(call "call-0"\) must return a gate configuration, got undefined$/)
    await expect(run(() => 'strict')).rejects.toThrow(TypeError)
    await expect(
      run(() => {
        throw new Error('no config for this one')
      }),
    ).rejects.toThrow('runTrials: config(call "call-0") threw: no config for this one')
  })
})
