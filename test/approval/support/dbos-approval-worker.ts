// The refund agent as a DBOS workflow in its own process (the test SIGKILLs it), or one approver:
// node dbos-approval-worker.ts <dir> <systemDatabaseUrl> <start|resume> <workflowId>
// node dbos-approval-worker.ts <dir> <systemDatabaseUrl> approve <workflowId> <approvalId> <reason>
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk'
import { dbosPort, sendApproval } from '../../../src/dbos.ts'
import { durableRefund } from './durable-approval-agent.ts'

const [dir, url, mode, id, approvalId, reason] = process.argv.slice(2) as [string, string, 'start' | 'resume' | 'approve', string, string, string]

if (mode === 'approve') {
  // An approver runs no workflow: a DBOS client on the system database sends the decision.
  const client = await DBOSClient.create({ systemDatabaseUrl: url })
  await sendApproval(id, approvalId, { approved: true, reason }, client)
  await client.destroy()
  process.stdout.write('sent\n')
  process.exit(0)
}

DBOS.setConfig({ name: 'rg-approval-test', systemDatabaseUrl: url, logLevel: 'error' })
const refunds = DBOS.registerWorkflow(async (): Promise<unknown> => durableRefund(dbosPort(), dir), { name: 'refunds' })
// Launching recovers the workflows this executor left pending: a killed run resumes here.
await DBOS.launch()
process.stdout.write('ready\n')
const handle = mode === 'start' ? await DBOS.startWorkflow(refunds, { workflowID: id })() : DBOS.retrieveWorkflow(id)
const result = await handle.getResult()
process.stdout.write(`result ${JSON.stringify(result)}\n`)
await DBOS.shutdown()
process.exit(0)
