import { expect, it } from 'vitest'
import pins from '../../../bench/eval-pins.json' with { type: 'json' }
import { runProviderSchemaCensus, type TargetCensus } from '../../../bench/eval/provider-schema.ts'
import { corpora, describeWith } from '../../support/requirements.ts'

// Every MaskBench schema (11,305 real schemas, ~37,000 labelled instances), compiled for each target.
describeWith(corpora)('compileProviderSchema on MaskBench', () => {
  let census: readonly TargetCensus[] = []

  it('compiles at least the pinned number of schemas for every target', () => {
    census = runProviderSchemaCensus().targets
    expect(census.map((t) => t.target)).toEqual(['openai-strict', 'anthropic', 'gemini'])
    const pinned = pins.providerSchema.full
    for (const t of census) {
      // Whether the library's own validator builds a checker for the largest originals depends on the
      // stack left to TypeBox's code generation (node vs a test worker): a few schemas either way.
      expect(Math.abs(t.schemas - pinned.schemas)).toBeLessThanOrEqual(5)
      expect(t.compiled, t.target).toBeGreaterThanOrEqual(pinned.compiled[t.target] - Math.max(0, pinned.schemas - t.schemas))
    }
  }, 600_000)

  it('maps every instance the original accepts back to itself (0 changed values)', () => {
    for (const t of census) expect({ target: t.target, changed: t.changedValues, valid: t.valid > 8000 }).toEqual({ target: t.target, changed: 0, valid: true })
  })

  it('maps every accepted instance to one the compiled schema accepts, unless a reported narrowing explains it', () => {
    for (const t of census) expect({ target: t.target, rejected: t.forwardRejected }).toEqual({ target: t.target, rejected: 0 })
  })

  it('lets no refused instance through after the round trip (0 new accepts)', () => {
    for (const t of census)
      expect({ target: t.target, newAccepts: t.newAccepts, invalid: t.invalid > 12000 }).toEqual({ target: t.target, newAccepts: 0, invalid: true })
  })

  it('never closes a map: every schema with a reachable map is refused', () => {
    for (const t of census)
      expect({ target: t.target, closed: t.mapsClosed, refused: t.mapsRefused > 1000 }).toEqual({ target: t.target, closed: 0, refused: true })
  })
})
