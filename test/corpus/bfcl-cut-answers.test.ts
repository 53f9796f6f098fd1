import { isDeepStrictEqual } from 'node:util'
import { expect, it } from 'vitest'
import { bfclTextOutputs } from '../../bench/eval/bfcl-correctness.ts'
import { compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { corpora, describeWith } from '../support/requirements.ts'

// Any value passes: what is measured is whether extraction and repair complete a cut answer.
const anyValue = compileSchema({ parse: (value: unknown) => value })
// One output in this many, each cut at every position: about 400 accepted answers, 100,000 cuts.
const SAMPLE_EVERY = 40

function accepted(text: string): { ok: true; value: unknown } | { ok: false } {
  const verdict = validateFinalAnswer(text, anyValue, { repair: true })
  if (verdict instanceof Promise) throw new Error('the schema is synchronous')
  return verdict.ok ? { ok: true, value: verdict.value } : { ok: false }
}

/** The cut kept whole calls only: the first of the uncut calls, or the first few of them, unchanged. */
function fewerWholeCalls(cut: unknown, whole: unknown): boolean {
  if (!Array.isArray(whole)) return false
  if (isDeepStrictEqual(cut, whole[0])) return true
  return Array.isArray(cut) && cut.length < whole.length && isDeepStrictEqual(cut, whole.slice(0, cut.length))
}

// Cut answers with a stop reason `end` (a proxy that loses the finish reason, a stop sequence, a stream
// without its `done` chunk): every accepted BFCL answer of the sample, cut at every position.
describeWith(corpora)('BFCL answers cut at every position, whatever the stop reason', () => {
  const { outputs } = bfclTextOutputs()
  const figures = { answers: 0, cuts: 0, accepted: 0, fewerCalls: 0 }
  const changed: string[] = []
  for (let k = 0; k < outputs.length; k += SAMPLE_EVERY) {
    const raw = (outputs[k] as { raw: string }).raw
    const whole = accepted(raw)
    if (!whole.ok) continue
    figures.answers++
    for (let at = 1; at < raw.length; at++) {
      const cut = raw.slice(0, at)
      // A cut of trailing whitespace only is the same answer.
      if (cut.trimEnd() === raw.trimEnd()) continue
      figures.cuts++
      const verdict = accepted(cut)
      if (!verdict.ok) continue
      figures.accepted++
      if (isDeepStrictEqual(verdict.value, whole.value)) continue
      if (fewerWholeCalls(verdict.value, whole.value)) figures.fewerCalls++
      else if (changed.length < 10) changed.push(`${JSON.stringify(cut.slice(-60))} accepted as ${JSON.stringify(verdict.value).slice(0, 80)}`)
    }
  }
  console.log(
    `[bfcl cut answers] ${figures.answers} answers, ${figures.cuts} cuts; accepted ${figures.accepted} ` +
      `(same value, or a cut between two calls that keeps the whole calls before it: ${figures.fewerCalls})`,
  )

  it('cuts a sample of accepted answers at every position', () => {
    expect(figures.answers).toBeGreaterThan(300)
    expect(figures.cuts).toBeGreaterThan(50_000)
  })

  it('accepts no cut with a value the uncut answer does not hold: no closed string, bracket or completed literal', () => {
    expect(changed).toEqual([])
  })

  it('accepts fewer calls only where the cut falls between whole calls, which no reader can tell from a shorter answer', () => {
    // Measured: 459 of 95,591 cuts; a half-written tag or a block reopened and left open is refused.
    expect(figures.fewerCalls / figures.cuts).toBeLessThan(0.01)
  })
})
