// A Restate service endpoint in its own process (the test SIGKILLs it): node restate-worker.ts <dir> <port>
import http2 from 'node:http2'
import { join } from 'node:path'
import * as restate from '@restatedev/restate-sdk'
import { restatePort } from '../../../src/restate.ts'
import { gateWorkflow } from './gate-workflow.ts'
import { reusedStep, twoSteps } from './workflow-steps.ts'

const [dir, port] = process.argv.slice(2) as [string, string]

const steps = restate.workflow({
  name: 'twoSteps',
  handlers: { run: async (ctx: restate.WorkflowContext) => twoSteps(restatePort(ctx), dir) },
})
const reuse = restate.workflow({
  name: 'reuse',
  handlers: { run: async (ctx: restate.WorkflowContext) => reusedStep(restatePort(ctx)) },
})

const gated = restate.workflow({
  name: 'gateRun',
  handlers: { run: async (ctx: restate.WorkflowContext) => gateWorkflow(restatePort(ctx), join(dir, 'gate')) },
})

// A virtual object's handler answers its run's id and its invocation's: every invocation on one key is a run of its own.
const orders = restate.object({
  name: 'orders',
  handlers: { runIds: async (ctx: restate.ObjectContext) => ({ runId: restatePort(ctx).runId, invocation: ctx.request().id, key: ctx.key }) },
})

const server = http2.createServer(restate.createEndpointHandler({ services: [steps, reuse, gated, orders] }))
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'))
