// A DBOS application in its own process (the test SIGKILLs it):
// node dbos-worker.ts <dir> <systemDatabaseUrl> <start|resume> <workflow> <workflowId>
import { join } from 'node:path'
import { DBOS } from '@dbos-inc/dbos-sdk'
import { dbosPort } from '../../../src/dbos.ts'
import { gateWorkflow } from './gate-workflow.ts'
import { reusedStep, twoSteps } from './workflow-steps.ts'

const [dir, url, mode, workflow, id] = process.argv.slice(2) as [string, string, 'start' | 'resume', 'twoSteps' | 'reuse' | 'gateRun', string]

DBOS.setConfig({ name: 'rg-durable-test', systemDatabaseUrl: url, logLevel: 'error' })
const workflows: Record<string, () => Promise<unknown>> = {
  twoSteps: DBOS.registerWorkflow(async (): Promise<unknown> => twoSteps(dbosPort(), dir), { name: 'twoSteps' }),
  reuse: DBOS.registerWorkflow(async (): Promise<unknown> => reusedStep(dbosPort()), { name: 'reuse' }),
  gateRun: DBOS.registerWorkflow(async (): Promise<unknown> => gateWorkflow(dbosPort(), join(dir, 'gate')), { name: 'gateRun' }),
}
// Launching recovers the workflows this executor left pending: a killed run resumes here.
await DBOS.launch()
process.stdout.write('ready\n')
const handle = mode === 'start' ? await DBOS.startWorkflow(workflows[workflow] as () => Promise<unknown>, { workflowID: id })() : DBOS.retrieveWorkflow(id)
const result = await handle.getResult()
process.stdout.write(`result ${JSON.stringify(result)}\n`)
await DBOS.shutdown()
process.exit(0)
