import { Type } from 'typebox'
import { Compile } from 'typebox/compile'
import { createGate, strictOutputRules, Agent } from '../src/index.ts'
const S = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() }, { additionalProperties: false })
const C = Compile(S)
const valid = '{"action":"refund","amount":50}'
const invalid = '{"action":"refund","amount":"USD 50"}'
const [which, scen, nStr] = process.argv.slice(2)
const N = Number(nStr)
const seq = scen === 'a' ? [valid] : [invalid, valid]
let i = 0
const next = () => seq[Math.min(i++, seq.length - 1)]!
const mk = (c: string) => ({ content: c, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' as const })
const rs = seq.map(mk)
const provider = { name: 'p', complete: async () => rs[Math.min(i++, rs.length - 1)]! } as any
async function floor() {
  const messages: any[] = [{ role: 'user', content: 'hi' }]
  for (let a = 0; a < 3; a++) {
    const text = next()
    let v: unknown
    try { v = JSON.parse(text) } catch (e) { messages.push({ role: 'assistant', content: text }, { role: 'user', content: String(e) }); continue }
    if (C.Check(v)) return v
    const errs = C.Errors(v)
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: errs.map((e: any) => `${e.instancePath}: ${e.message}`).join('\n') })
  }
  throw new Error('x')
}
const g = createGate({ providers: provider, outputSchema: S, postDecide: strictOutputRules(3) }); g.on('validation_failed', () => {})
const ag = Agent.create({ provider, name: 'b' }).outputSchema(S).reliability({ postDecide: strictOutputRules(3) }).build(); ag.on('validation_failed', () => {})
const req = { messages: [{ role: 'user' as const, content: 'hi' }] }
const fn = which === 'floor' ? floor : which === 'gate' ? () => g.run(req) : () => ag.session().runTyped('hi')
// warm-up always the same, then N measured calls
for (let k = 0; k < 20000; k++) { i = 0; await fn() }
for (let k = 0; k < N; k++) { i = 0; await fn() }
