// One process of the fleet of `npm run bench:redis`, run by fleet-throughput.ts with
// `node fleet-worker.ts <port> <policies> <concurrency> <providerMs>`: connects, warms up, prints `ready` and waits
// for a `go <durationMs>` line on stdin; then keeps `concurrency` gate runs going against the shared
// redis-server for that long (starting none after it), and prints one JSON line: every attempt made
// since `go`, and the time from `go` to the end of the last one.
import { createInterface } from 'node:readline'

import { Redis } from 'ioredis'
import { redisStore } from '../../src/redis.ts'
import { delayedProvider, FLEET_REQUEST, fleetGate, instantProvider, type FleetPolicies } from './fleet-gate.ts'

/** What one worker printed. */
export interface WorkerReport {
  readonly attempts: number
  /** From `go` to the end of the last attempt, in ms. */
  readonly elapsedMs: number
  readonly errors: number
  readonly firstError: string | undefined
}

const [port, policies, concurrency, providerMs] = process.argv.slice(2)
const client = new Redis({
  host: '127.0.0.1',
  port: Number(port),
  maxRetriesPerRequest: 0,
  enableOfflineQueue: false,
  connectTimeout: 2_000,
  lazyConnect: true,
})
await client.connect()
// Every process uses the same prefix and keys: one budget, one rate-limit window, one breaker for the fleet.
const gate = fleetGate(
  policies as FleetPolicies,
  redisStore(client, { keyPrefix: 'rg-fleet:' }),
  Number(providerMs) > 0 ? delayedProvider(Number(providerMs)) : instantProvider(),
)
let attempts = 0
let errors = 0
let firstError: string | undefined
let end = 0
let elapsedMs = 0

async function lane(): Promise<void> {
  while (performance.now() < end) {
    try {
      await gate.run(FLEET_REQUEST)
      attempts++
    } catch (error) {
      errors++
      firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    }
  }
}

/** The first line on stdin. */
async function firstLine(): Promise<string> {
  const lines = createInterface({ input: process.stdin })
  for await (const line of lines) {
    lines.close()
    return line
  }
  return ''
}

try {
  for (let i = 0; i < 50; i++) await gate.run(FLEET_REQUEST)
  process.stdout.write('ready\n')
  const go = /^go (\d+)$/.exec(await firstLine())
  if (go === null) throw new Error('fleet worker: expected "go <durationMs>" on stdin')
  const started = performance.now()
  end = started + Number(go[1])
  await Promise.all(Array.from({ length: Number(concurrency) }, lane))
  elapsedMs = performance.now() - started
} finally {
  client.disconnect()
}
const report: WorkerReport = { attempts, elapsedMs, errors, firstError }
process.stdout.write(`${JSON.stringify(report)}\n`)
