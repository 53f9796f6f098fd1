import { expect, it } from 'vitest'
import { type BfclReplayResult, measureBfclReplay } from '../../bench/eval/bfcl-replay.ts'
import { corpora, describeWith } from '../support/requirements.ts'

describeWith(corpora)('BFCL first answers replayed under two schema versions', () => {
  let result: BfclReplayResult
  it('replays every single-call first answer of the archive under both versions', { timeout: 120_000 }, async () => {
    result = await measureBfclReplay()
    expect(result.answers).toBeGreaterThan(7000)
    expect(result.models).toBeGreaterThanOrEqual(15)
    const models = Object.values(result.byModel)
    expect(models.reduce((n, m) => n + m.answers, 0)).toBe(result.answers)
  })

  it('accepts under the strict version only answers the first version accepts, and names the difference per model', () => {
    const models = Object.values(result.byModel)
    expect(models.every((m) => m.gained === 0 && m.acceptedV2 === m.acceptedV1 - m.lost)).toBe(true)
    expect(result.acceptedV2).toBeLessThan(result.acceptedV1)
    // Hermes-style envelopes are accepted under v1 and lose their answers that leave an optional argument out.
    expect(result.byModel['NousResearch_Hermes-2-Pro-Llama-3-8B']?.lost).toBeGreaterThan(0)
  })

  it('reports each rejected first answer as needing a model answer, never as decided', () => {
    expect(result.needsModelAnswerV2).toBe(result.answers - result.acceptedV2)
  })
})
