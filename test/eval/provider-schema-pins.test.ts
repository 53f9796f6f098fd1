import { expect, it } from 'vitest'
import pins from '../../bench/eval-pins.json' with { type: 'json' }
import { runProviderSchemaCensus } from '../../bench/eval/provider-schema.ts'
import { corpora, describeWith } from '../support/requirements.ts'

// The provider-schema census `npm run eval` reports (bench/eval/provider-schema.ts), on the pinned
// MaskBench subsample: compile counts at least as pinned, and the invariant's counts at zero.
describeWith(corpora)('provider schema census (MaskBench subsample)', () => {
  it('compiles at least the pinned schemas per target with no changed value, new accept or closed map', () => {
    const pinned = pins.providerSchema.subsample
    const result = runProviderSchemaCensus({ sampleSize: pinned.sampleSize, seed: pinned.seed })
    expect(result.files).toBe(pinned.schemas)
    for (const t of result.targets) {
      expect(t.compiled, t.target).toBeGreaterThanOrEqual(pinned.compiled[t.target])
      expect({ changed: t.changedValues, forwardRejected: t.forwardRejected, newAccepts: t.newAccepts, mapsClosed: t.mapsClosed }).toEqual({
        changed: 0,
        forwardRejected: 0,
        newAccepts: 0,
        mapsClosed: 0,
      })
    }
  }, 120_000)
})
