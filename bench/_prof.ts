import { Type } from 'typebox'
import { createGate, strictOutputRules } from '../src/index.ts'
const S = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() }, { additionalProperties: false })
const valid = '{"action":"refund","amount":50}'
const invalid = '{"action":"refund","amount":"USD 50"}'
const mode = process.argv[2] ?? 'a'
let i = 0
const seq = mode === 'a' ? [valid] : [invalid, valid]
const mk = (c: string) => ({ content: c, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' as const })
const rs = seq.map(mk)
const g = createGate({ providers: { name: 'p', complete: async () => rs[Math.min(i++, rs.length - 1)]! } as any, outputSchema: S, postDecide: strictOutputRules(3) })
g.on('validation_failed', () => {})
const req = { messages: [{ role: 'user' as const, content: 'hi' }] }
const N = mode === 'a' ? 2_000_000 : 200_000
const t = performance.now()
for (let k = 0; k < N; k++) { i = 0; await g.run(req) }
console.error(mode, ((performance.now() - t) * 1000 / N).toFixed(3), 'us')
