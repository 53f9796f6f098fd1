// One process of a fleet sharing a reliability profile, run by shared-profile.test.ts with
// `node profile-worker.ts <port> <worker> <runs>`: each run's first answer is not JSON; the retry
// recovers on every run whose number is even. Prints what its profile read back.
import { Redis } from 'ioredis'
import { Type } from 'typebox'
import { createGate, reliabilityProfile, strictOutputRules } from '../../../src/index.ts'
import { scripted } from '../../../src/providers/index.ts'
import { redisStore } from '../../../src/store/redis/index.ts'

const [port, worker, runs] = process.argv.slice(2).map(Number) as [number, number, number]
const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 500, lazyConnect: true })
await client.connect()
const profile = reliabilityProfile({ store: redisStore(client, { keyPrefix: 'profile-fleet:' }) })
const steps = Array.from({ length: runs }, (_, i) => ['not json', i % 2 === 0 ? '{"n": 1}' : 'still not json']).flat()
const gate = createGate({
  providers: scripted(steps, { name: 'p' }),
  model: 'm',
  outputSchema: Type.Object({ n: Type.Integer() }),
  postDecide: strictOutputRules(2),
})
profile.observe(gate)
for (let i = 0; i < runs; i++) await gate.run({ messages: [{ role: 'user', content: `worker ${worker} run ${i}` }] }).catch(() => undefined)
await profile.flush()
console.log(JSON.stringify({ worker, seen: profile.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 }) ?? null }))
client.disconnect()
