import { isDeepStrictEqual } from 'node:util'
import { type CompiledSchema, compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { bfclTextOutputs } from './bfcl-correctness.ts'
import { callSchema, normName } from './bfcl-oracle.ts'

/** Every accepted BFCL answer cut at every position (or those of a deterministic sample), and what was accepted. */
export interface BfclCuts {
  /** One output in this many was taken (1: every output). */
  readonly every: number
  readonly answers: number
  readonly cuts: number
  /** Cuts accepted with the uncut answer's value (a cut of trailing prose or of a closing remark). */
  readonly sameValue: number
  /** Cuts accepted with a value the uncut answer does not hold: a closed string or bracket, a completed literal. */
  readonly changedValue: number
  /** Cuts accepted with whole trailing calls missing (the first calls of the answer, unchanged). */
  readonly fewerCalls: number
  /** … of which the cut ends inside a `<tool_call>` block opened and never closed, with a call begun after it (detectable: must be 0). */
  readonly fewerCallsInOpenToolCall: number
  /** … of which the cut falls right after a closing tag (`</tool_call>`): undetectable but for the stop reason. */
  readonly fewerCallsAfterCloser: number
  /** … of which the cut falls between values of a format without closing tags (one per line, `<|im_start|>` turns, a dangling opener). */
  readonly fewerCallsWithoutCloser: number
  readonly examples: readonly string[]
}

/** The cut kept whole calls only: the first of the uncut calls, or the first few of them, unchanged. */
function fewerWholeCalls(cut: unknown, whole: unknown): boolean {
  if (!Array.isArray(whole)) return false
  if (isDeepStrictEqual(cut, whole[0])) return true
  return Array.isArray(cut) && cut.length < whole.length && isDeepStrictEqual(cut, whole.slice(0, cut.length))
}

function accepted(text: string, schema: CompiledSchema): { ok: true; value: unknown } | { ok: false } {
  const verdict = validateFinalAnswer(text, schema, { repair: true })
  if (verdict instanceof Promise) throw new Error('the schema is synchronous')
  // Names compare with dots as underscores, as the oracle compares them.
  if (!verdict.ok) return { ok: false }
  const calls = verdict.value as { name: string; args: unknown }[]
  return { ok: true, value: calls.map((c) => ({ name: normName(c.name), args: c.args })) }
}

/** Whether a text ends inside a `<tool_call>` block opened and never closed, with a `{` or `[` after the opener (read independently of the library). */
export function endsInOpenToolCall(text: string): boolean {
  const open = text.lastIndexOf('<tool_call>')
  return open >= 0 && text.indexOf('</tool_call>', open) < 0 && /[{[]/.test(text.slice(open)) && !/<\|[^|]*\|>/.test(text.slice(open))
}

/**
 * The scored BFCL text outputs (one in `every`, deterministic: outputs 0, every, 2·every... of the
 * corpus) that `validateFinalAnswer` with repair accepts against their question's call schema, cut at
 * every position, with the stop reason `end` (a proxy that lost the finish reason, a stop sequence, a
 * stream without its `done` chunk): how many cuts are accepted, with which calls. A cut of trailing
 * white space only is the same answer and not counted.
 */
export function measureBfclCuts(every = 1): BfclCuts {
  const { outputs, answers } = bfclTextOutputs()
  const f = {
    answers: 0,
    cuts: 0,
    sameValue: 0,
    changedValue: 0,
    fewerCalls: 0,
    fewerCallsInOpenToolCall: 0,
    fewerCallsAfterCloser: 0,
    fewerCallsWithoutCloser: 0,
  }
  const examples: string[] = []
  for (let k = 0; k < outputs.length; k += every) {
    const out = outputs[k] as (typeof outputs)[number]
    if (!answers.has(out.id)) continue
    const raw = out.raw
    const schema = compileSchema(callSchema(out.functions))
    const whole = accepted(raw, schema)
    if (!whole.ok) continue
    f.answers++
    for (let at = 1; at < raw.length; at++) {
      const cut = raw.slice(0, at)
      if (cut.trimEnd() === raw.trimEnd()) continue
      f.cuts++
      const verdict = accepted(cut, schema)
      if (!verdict.ok) continue
      if (isDeepStrictEqual(verdict.value, whole.value)) f.sameValue++
      else if (fewerWholeCalls(verdict.value, whole.value)) {
        f.fewerCalls++
        if (endsInOpenToolCall(cut)) {
          f.fewerCallsInOpenToolCall++
          if (examples.length < 10) examples.push(`open <tool_call>: ${JSON.stringify(cut.slice(-60))}`)
        } else if (/<\/[A-Za-z_][\w-]*>\s*$/.test(cut)) f.fewerCallsAfterCloser++
        else f.fewerCallsWithoutCloser++
      } else {
        f.changedValue++
        if (examples.length < 10) examples.push(`changed: ${JSON.stringify(cut.slice(-60))} accepted as ${JSON.stringify(verdict.value).slice(0, 80)}`)
      }
    }
  }
  return { every, ...f, examples }
}
