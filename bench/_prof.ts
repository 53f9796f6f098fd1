import { createGate, strictOutputRules } from '../src/index.ts'
import { Refund, USER_MESSAGE, PAYLOADS } from './scenarios.ts'
const r = { content: PAYLOADS.valid, toolCalls: [], usage: { inputTokens: 20, outputTokens: 20 }, stopReason: 'end' as const }
const gate = createGate({ providers: [{ name: 'p', complete: async () => r }], outputSchema: Refund, postDecide: strictOutputRules(3) })
gate.on('validation_failed', () => {})
const request = { messages: [{ role: 'user' as const, content: USER_MESSAGE }] }
const N = 3_000_000; const t = performance.now()
for (let k = 0; k < N; k++) await gate.run(request)
console.error(((performance.now() - t) * 1e6 / N).toFixed(0), 'ns')
