// The fault sweep's agent as a Restate workflow, in its own process: node restate-sweep-worker.ts <port> <kill|resume>
// With `kill`, the run SIGKILLs this process at its input's kill point; with `resume`, it runs to the end.
import { appendFileSync } from 'node:fs'
import http2 from 'node:http2'
import { join } from 'node:path'
import * as restate from '@restatedev/restate-sdk'
import { restatePort } from '../../../src/restate.ts'
import { killingPort, sweepAgent, sweepRun } from './fault-sweep-script.ts'

const [port, mode] = process.argv.slice(2) as [string, 'kill' | 'resume']

interface SweepInput {
  readonly seed: number
  readonly killAt: number
  readonly dir: string
}

const agentRun = restate.workflow({
  name: 'agentRun',
  handlers: {
    run: async (ctx: restate.WorkflowContext, input: SweepInput) => {
      const payments = {
        attempt: (key: string | undefined, order: string) => appendFileSync(join(input.dir, 'payments'), `${JSON.stringify({ key, order })}\n`),
      }
      const durable = killingPort(restatePort(ctx), mode === 'kill' ? input.killAt : -1)
      const result = await sweepAgent(sweepRun(input.seed), payments).runDetailed('refund the orders', { durable })
      return { text: result.text, calls: result.functionsCalled.map((f) => ({ id: f.id, status: f.status })) }
    },
  },
})

http2.createServer(restate.createEndpointHandler({ services: [agentRun] })).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'))
