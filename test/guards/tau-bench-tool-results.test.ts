import { expect, it } from 'vitest'
import { screenTauBenchResults } from '../../bench/eval/guards-tau-bench.ts'
import { corpora, describeWith } from '../support/requirements.ts'

describeWith(corpora)('shipped pattern guards on the tau-bench GPT-4o airline tool results', () => {
  const screened = screenTauBenchResults()

  it('withholds none of the 1,164 recorded tool results', () => {
    expect(screened.results).toBe(1164)
    expect(screened.withheldRules).toEqual([])
    expect(screened.withheld).toBe(0)
  })

  it('finds only the users’ own email addresses to redact: no card, phone, key or instruction', () => {
    expect(Object.keys(screened.byKind)).toEqual(['email'])
    expect(screened.redacted).toBe(screened.byKind['email'])
  })

  it('withholds every result with an instruction planted in it, plain, zero-width, homoglyph or fullwidth', () => {
    expect(screened.planted).toBe(1164)
    expect(screened.plantedWithheld).toBe(1164)
  })
})
