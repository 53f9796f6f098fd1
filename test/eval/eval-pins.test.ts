import { describe, expect, it } from 'vitest'
import pins from '../../bench/eval-pins.json' with { type: 'json' }
import { runJsonSchemaSuite } from '../../bench/eval/json-schema-suite.ts'
import { pythonInstancePath, runMaskBench, splitOf } from '../../bench/eval/maskbench.ts'
import { runTauBench } from '../../bench/eval/tau-bench.ts'
import { corpora, describeWith } from '../support/requirements.ts'

// The real-data figures `npm run eval` reports, recomputed on the cheap parts so that a regression in
// the validation layer fails CI. Pins live in bench/eval-pins.json; raise them when behaviour improves.

describeWith(corpora)('JSON-Schema-Test-Suite pass counts', () => {
  for (const draft of ['draft2020-12', 'draft7'] as const) {
    it(`passes at least the pinned ${draft} tests`, () => {
      const result = runJsonSchemaSuite(draft)
      const pinned = pins.jsonSchemaSuite[draft]
      expect(result.required.total).toBe(pinned.required.total)
      expect(result.optional.total).toBe(pinned.optional.total)
      expect(result.required.passed).toBeGreaterThanOrEqual(pinned.required.passed)
      expect(result.optional.passed).toBeGreaterThanOrEqual(pinned.optional.passed)
    })
  }
})

describeWith(corpora)('tau-bench tool calls', () => {
  const result = runTauBench()

  it('accepts every real tool call (zero false rejections)', () => {
    expect(result.calls).toBe(pins.tauBench.calls)
    expect(result.rejected).toEqual([])
    expect(result.accepted).toBe(pins.tauBench.accepted)
  })

  it('accepts every real tool call on each of the six paths into validation', () => {
    expect(result.paths).toHaveLength(6)
    for (const path of result.paths)
      expect({ path: path.path, accepted: path.accepted, rejected: path.rejected }).toEqual({ path: path.path, accepted: pins.tauBench.accepted, rejected: [] })
  })
})

describeWith(corpora)('MaskBench subsample', () => {
  it('agrees with the reference labels at least as often as pinned', () => {
    const pinned = pins.maskBench.subsample
    const result = runMaskBench({ sampleSize: pinned.sampleSize, seed: pinned.seed })
    expect(result.sampled).toBe(pinned.sampled)
    expect(result.compileFailures).toBeLessThanOrEqual(pinned.compileFailures)
    expect(result.instances.total).toBeGreaterThanOrEqual(pinned.instances)
    expect(result.instances.agree).toBeGreaterThanOrEqual(pinned.agree)
  }, 60_000)
})

describe('MaskBench helpers', () => {
  it('names the split of a file', () => {
    expect(splitOf('Github_easy---o10008.json')).toBe('Github_easy')
    expect(splitOf('JME_10.json')).toBe('JME')
  })

  it('reads the instance path of a python-jsonschema error', () => {
    expect(pythonInstancePath("'x' is not valid\n\nOn instance['items'][0]['title']:\n    'x'")).toEqual(['items', 0, 'title'])
    expect(pythonInstancePath('no path here')).toBeUndefined()
  })
})
