import { expect, it } from 'vitest'
import { measureBfclCuts } from '../../bench/eval/bfcl-cuts.ts'
import { corpora, describeWith } from '../support/requirements.ts'

// One output in this many, each cut at every position: about 480 accepted answers, 140,000 cuts.
// `npm run eval` runs the whole corpus (every output).
const SAMPLE_EVERY = 20

// Cut answers with a stop reason `end` (a proxy that loses the finish reason, a stop sequence, a stream
// without its `done` chunk): every BFCL answer of the sample accepted against its call schema, cut at every position.
describeWith(corpora)('BFCL answers cut at every position, whatever the stop reason', () => {
  const f = measureBfclCuts(SAMPLE_EVERY)
  console.log(
    `[bfcl cut answers] ${f.answers} answers, ${f.cuts} cuts; accepted with the same value ${f.sameValue}, a changed value ${f.changedValue}, ` +
      `fewer whole calls ${f.fewerCalls} (inside an open <tool_call> ${f.fewerCallsInOpenToolCall}, right after a closing tag ${f.fewerCallsAfterCloser}, ` +
      `between values without closing tags ${f.fewerCallsWithoutCloser})`,
  )

  it('cuts a sample of accepted answers at every position', () => {
    expect(f.answers).toBeGreaterThan(400)
    expect(f.cuts).toBeGreaterThan(100_000)
  })

  it('accepts no cut with a value the uncut answer does not hold: no closed string, bracket or completed literal', () => {
    expect(f.examples).toEqual([])
    expect(f.changedValue).toBe(0)
  })

  it('accepts no cut that ends inside a <tool_call> block opened and never closed', () => {
    expect(f.fewerCallsInOpenToolCall).toBe(0)
  })

  it('accepts fewer calls only where the cut falls between whole calls, which no reader can tell from a shorter answer', () => {
    // The bound, measured: right after a closing tag, or between values written one per line or one per
    // `<|im_start|>` turn (formats without closing tags); the stop reason is then the only signal.
    expect(f.fewerCalls).toBe(f.fewerCallsAfterCloser + f.fewerCallsWithoutCloser)
    expect(f.fewerCalls / f.cuts).toBeLessThan(0.05)
  })
})
