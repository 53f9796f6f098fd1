import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { adaptiveRetry, createGate, type Provider, type RecoveryEstimate, type RecoveryKey } from '../../src/index.ts'

const Schema = Type.Object({ n: Type.Integer() })

/** A profile that answers the same estimate for every key, and remembers what it was asked. */
function fixedProfile(estimate: RecoveryEstimate | undefined) {
  const asked: RecoveryKey[] = []
  return { asked, recovery: (key: RecoveryKey) => (asked.push(key), estimate) }
}
const est = (rate: number, low: number, high: number, trials = 40): RecoveryEstimate => ({ trials, recovered: Math.round(rate * trials), rate, low, high })

/** A model that never answers JSON; the backup always does. */
const broken: Provider = {
  name: 'weak',
  complete: async () => ({ content: 'not json', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, stopReason: 'end' }),
}
const backup: Provider = {
  name: 'strong',
  complete: async () => ({ content: '{"n": 1}', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, stopReason: 'end' }),
}

async function run(postDecide: ReturnType<typeof adaptiveRetry>, providers: readonly Provider[]) {
  const gate = createGate({ providers: providers.map((provider) => ({ provider, model: `${provider.name}-1` })), outputSchema: Schema, postDecide })
  const decisions: { decision: string; kind: string; label: string | undefined }[] = []
  gate.on('decision', (e) => decisions.push({ decision: e.decision, kind: e.kind, label: e.label }))
  const outcome = await gate.run({ messages: [{ role: 'user', content: 'x' }] }).then(
    (r) => ({ ok: true, attempts: r.attempts.length, kind: 'ok' }),
    (e: { kind: string; attempts: unknown[] }) => ({ ok: false, attempts: e.attempts.length, kind: e.kind }),
  )
  return { ...outcome, decisions }
}

describe('adaptiveRetry', () => {
  it('fails over at once from a model that does not recover from this error class, and says why in the decision event', async () => {
    const profile = fixedProfile(est(0.05, 0.01, 0.12))
    const r = await run(adaptiveRetry({ profile }), [broken, backup])
    expect(r).toMatchObject({ ok: true, attempts: 2 })
    expect(r.decisions[0]).toEqual({
      decision: 'retry-other',
      kind: 'adaptive-failover',
      label: 'parse on weak/weak-1, retry 1: recovery 0.05 [0.01, 0.12] over 40 retries is below 0.15: fail over',
    })
    expect(profile.asked[0]).toEqual({ provider: 'weak', model: 'weak-1', errorClass: 'parse', retry: 1 })
  })

  it('stops retrying with kind adaptive-stop when no other provider is left', async () => {
    const r = await run(adaptiveRetry({ profile: fixedProfile(est(0.05, 0.01, 0.12)) }), [broken])
    expect(r).toMatchObject({ ok: false, attempts: 1, kind: 'adaptive-stop' })
  })

  it('allows retries up to the hard cap where recovery is high, and never more', async () => {
    const r = await run(adaptiveRetry({ profile: fixedProfile(est(0.8, 0.6, 0.9)), maxAttempts: 5 }), [broken])
    expect(r).toMatchObject({ ok: false, attempts: 5 })
    expect(r.decisions.slice(0, 4).every((d) => d.kind === 'adaptive-retry' && d.label?.includes('is at least 0.5'))).toBe(true)
  })

  it('retries as strictOutputRules(baselineAttempts) while the profile knows too little', async () => {
    expect(await run(adaptiveRetry({ profile: fixedProfile(undefined) }), [broken])).toMatchObject({ ok: false, attempts: 3 })
    const few = await run(adaptiveRetry({ profile: fixedProfile(est(0, 0, 0.6, 5)) }), [broken])
    expect(few).toMatchObject({ ok: false, attempts: 3 })
    expect(few.decisions[0]?.label).toContain('(fewer than 20)')
  })

  it('never makes more attempts than maxAttempts, whatever the profile says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 6 }),
        async (a, b, cap) => {
          const [low, high] = a <= b ? [a, b] : [b, a]
          const r = await run(adaptiveRetry({ profile: fixedProfile(est((low + high) / 2, low, high)), maxAttempts: cap }), [broken])
          expect(r.attempts).toBeLessThanOrEqual(cap)
        },
      ),
      { numRuns: 40, seed: 3204 },
    )
  })

  it('contains a profile that throws (a rule_error, the run still typed) and treats a thenable or NaN estimate as unknown', async () => {
    const throwing = {
      recovery: (): RecoveryEstimate | undefined => {
        throw new Error('profile store down')
      },
    }
    const gate = createGate({ providers: [{ provider: broken, model: 'weak-1' }], outputSchema: Schema, postDecide: adaptiveRetry({ profile: throwing }) })
    const ruleErrors: string[] = []
    gate.on('rule_error', (e) => ruleErrors.push(String((e.error as Error).message)))
    const failure = await gate.run({ messages: [{ role: 'user', content: 'x' }] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(failure).toMatchObject({ kind: expect.any(String) })
    expect(ruleErrors.some((m) => m.includes('profile store down'))).toBe(true)
    for (const estimate of [Promise.resolve(est(0, 0, 0)), est(Number.NaN, Number.NaN, Number.NaN)]) {
      const odd = await run(adaptiveRetry({ profile: { recovery: () => estimate as unknown as RecoveryEstimate }, baselineAttempts: 3 }), [broken])
      expect(odd).toMatchObject({ ok: false, attempts: 3 })
    }
  })

  it('refuses bad options', () => {
    expect(() => adaptiveRetry({ profile: fixedProfile(undefined), maxAttempt: 3 } as never)).toThrow(/did you mean "maxAttempts"/)
    expect(() => adaptiveRetry({} as never)).toThrow(/profile is required/)
    expect(() => adaptiveRetry({ profile: fixedProfile(undefined), stopBelow: 0.6, extendAbove: 0.4 })).toThrow(RangeError)
  })

  it('refuses classes that name no error class (a misspelt one would never match), listing the classes', () => {
    expect(() => adaptiveRetry({ profile: fixedProfile(undefined), classes: ['trasient' as never] })).toThrow(
      /adaptiveRetry: classes must be an array of error classes \(parse, schema:missing_required, .*, truncation, transient, tool-args, other\), got an array/,
    )
    expect(() => adaptiveRetry({ profile: fixedProfile(undefined), classes: ['schema:required' as never] })).toThrow(TypeError)
    expect(() => adaptiveRetry({ profile: fixedProfile(undefined), classes: ['transient', 'schema:invalid_type', 'parse'] })).not.toThrow()
  })
})
