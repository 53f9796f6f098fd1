// The refund agent as a Restate workflow in its own process (the test SIGKILLs it): node restate-approval-worker.ts <port>
// Each run's files go to the folder its input names.
import http2 from 'node:http2'
import * as restate from '@restatedev/restate-sdk'
import { resolveApproval, restatePort } from '../../../src/restate.ts'
import { durableRefund } from './durable-approval-agent.ts'

const [port] = process.argv.slice(2) as [string]

const refunds = restate.workflow({
  name: 'refunds',
  handlers: {
    run: async (ctx: restate.WorkflowContext, input: { dir: string }) => durableRefund(restatePort(ctx), input.dir),
    approve: async (ctx: restate.WorkflowSharedContext, body: { approvalId: string; approved: boolean; reason?: string }) =>
      resolveApproval(ctx, body.approvalId, { approved: body.approved, ...(body.reason === undefined ? {} : { reason: body.reason }) }),
  },
})

http2.createServer(restate.createEndpointHandler({ services: [refunds] })).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'))
