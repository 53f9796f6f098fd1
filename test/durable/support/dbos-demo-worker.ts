// One run of the demo agent as a DBOS workflow (it may SIGKILL itself at any step's kill point):
// node dbos-demo-worker.ts <systemDatabaseUrl> <start|resume> <seed> <killAt> <redisPort> <providerBaseURL> [workflowId]
// `resume` launches DBOS, which recovers the workflow the killed process left pending, and waits for its result.
import { DBOS } from '@dbos-inc/dbos-sdk'
import { Redis } from 'ioredis'
import { dbosPort } from '../../../src/dbos.ts'
import { demoAgent, killAtStep } from './demo-agent.ts'

const [url, mode, seedText, killAtText, redisPort, baseURL, workflowId] = process.argv.slice(2) as [
  string,
  'start' | 'resume',
  string,
  string,
  string,
  string,
  string?,
]
const seed = Number(seedText)
const killAt = mode === 'start' ? Number(killAtText) : -1
const redis = new Redis({ host: '127.0.0.1', port: Number(redisPort), maxRetriesPerRequest: 1 })

DBOS.setConfig({ name: 'rg-demo-sweep', systemDatabaseUrl: url, logLevel: 'error' })
const demoRun = DBOS.registerWorkflow(
  async (): Promise<unknown> => {
    const durable = killAtStep(dbosPort(), killAt)
    return demoAgent({ baseURL, seed, runId: durable.runId, redis }).run(durable)
  },
  { name: 'demoRun' },
)
await DBOS.launch()
// Launched: DBOS has recovered what this executor left pending (the bench times the resume from here).
process.stdout.write('launched\n')
const id = workflowId ?? `sweep-${seed}`
const handle = mode === 'start' ? await DBOS.startWorkflow(demoRun, { workflowID: id })() : DBOS.retrieveWorkflow(id)
process.stdout.write(`result ${JSON.stringify(await handle.getResult())}\n`)
await DBOS.shutdown()
redis.disconnect()
process.exit(0)
