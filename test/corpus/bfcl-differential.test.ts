import { expect, it } from 'vitest'
import { measureBfclDifferential } from '../../bench/eval/bfcl-differential.ts'
import { corpora, describeWith } from '../support/requirements.ts'

// Every scored BFCL answer the previous release accepted with a value faithful to the text (ids and
// hashes in bench/eval/bfcl-baseline.json.gz) must still be accepted with the same calls, or be listed
// with its reason in bench/eval/bfcl-justified-changes.ts (and so in the eval report).
describeWith(corpora)('BFCL answers against the previous release', () => {
  const d = measureBfclDifferential()
  console.log(
    `[bfcl differential] against ${d.release}: ${d.baseline} answers accepted faithfully before, ${d.kept} kept with the same calls, ` +
      `${d.changes.length} changed (${d.unjustified} not justified); ${d.gainedCorrect} correct answers gained`,
  )

  it('reads the baseline of the previous release', () => {
    expect(d.baseline).toBeGreaterThan(9000)
  })

  it('keeps every answer accepted before, with the same calls, unless the change is listed and justified', () => {
    expect(d.changes.filter((c) => c.reason === undefined)).toEqual([])
    expect(d.kept + d.changes.length).toBe(d.baseline)
  })

  it('changes no accepted value: a listed change is a refusal, never other calls', () => {
    expect(d.changes.filter((c) => c.now === 'changed')).toEqual([])
  })

  it('refuses no answer the previous release accepted correctly', () => {
    expect(d.changes.filter((c) => c.wasCorrect)).toEqual([])
  })
})
