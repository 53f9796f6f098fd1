// One run of the fault sweep in a DBOS application (it may SIGKILL itself at a step boundary):
// node dbos-sweep-worker.ts <dir> <systemDatabaseUrl> <start|resume> <seed> <killAt>
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { DBOS } from '@dbos-inc/dbos-sdk'
import { dbosPort } from '../../../src/dbos.ts'
import { killingPort, sweepAgent, sweepRun } from './fault-sweep-script.ts'

const [dir, url, mode, seedText, killAtText] = process.argv.slice(2) as [string, string, 'start' | 'resume', string, string]
const seed = Number(seedText)
const killAt = mode === 'start' ? Number(killAtText) : -1

DBOS.setConfig({ name: 'rg-durable-sweep', systemDatabaseUrl: url, logLevel: 'error' })
const agentRun = DBOS.registerWorkflow(
  async (): Promise<unknown> => {
    const payments = { attempt: (key: string | undefined, order: string) => appendFileSync(join(dir, 'payments'), `${JSON.stringify({ key, order })}\n`) }
    const result = await sweepAgent(sweepRun(seed), payments).runDetailed('refund the orders', { durable: killingPort(dbosPort(), killAt) })
    return { text: result.text, calls: result.functionsCalled.map((f) => ({ id: f.id, status: f.status, result: f.result })) }
  },
  { name: 'agentRun' },
)
await DBOS.launch()
const id = `sweep-${seed}`
const handle = mode === 'start' ? await DBOS.startWorkflow(agentRun, { workflowID: id })() : DBOS.retrieveWorkflow(id)
process.stdout.write(`result ${JSON.stringify(await handle.getResult())}\n`)
await DBOS.shutdown()
process.exit(0)
