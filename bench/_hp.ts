import { Session } from 'node:inspector/promises'
import { createGate, strictOutputRules, Agent } from '../src/index.ts'
import { Refund, USER_MESSAGE, PAYLOADS } from './scenarios.ts'
const r = { content: PAYLOADS.valid, toolCalls: [], usage: { inputTokens: 20, outputTokens: 20 }, stopReason: 'end' as const }
const provider = { name: 'p', complete: async () => r }
const gate = createGate({ providers: [provider], outputSchema: Refund, postDecide: strictOutputRules(3) })
gate.on('validation_failed', () => {})
const agent = Agent.create({ provider }).outputSchema(Refund).reliability({ postDecide: strictOutputRules(3) }).build()
agent.on('validation_failed', () => {})
const request = { messages: [{ role: 'user' as const, content: USER_MESSAGE }] }
const fn = process.argv[2] === 'agent' ? () => agent.session().runTyped(USER_MESSAGE) : () => gate.run(request)
for (let k = 0; k < 100_000; k++) await fn()
const s = new Session(); s.connect()
await s.post('HeapProfiler.startSampling', { samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
const N = 100_000
for (let k = 0; k < N; k++) await fn()
const { profile } = await s.post('HeapProfiler.stopSampling') as any
const self: Record<string, number> = {}; let tot = 0
const walk = (n: any) => { const k = n.callFrame.functionName + ' ' + n.callFrame.url.split('/').slice(-2).join('/') + ':' + n.callFrame.lineNumber; self[k] = (self[k] ?? 0) + n.selfSize; tot += n.selfSize; n.children.forEach(walk) }
walk(profile.head)
console.log('bytes/call ~', Math.round(tot / N))
Object.entries(self).sort((a, b) => b[1] - a[1]).slice(0, 25).forEach(([k, v]) => console.log(Math.round(v / N), 'B', k))
