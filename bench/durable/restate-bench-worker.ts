// The bench's Restate endpoint: node restate-bench-worker.ts <port>
// The workflow gateBench runs `runs` gate runs in a row, each with the durable port (its steps named
// under the run's index) or without, and answers the milliseconds they took inside the handler.
import http2 from 'node:http2'
import { performance } from 'node:perf_hooks'
import * as restate from '@restatedev/restate-sdk'
import { restatePort } from '../../src/restate.ts'
import { benchRun, prefixedPort } from './bench-gate.ts'

const [port] = process.argv.slice(2) as [string]

const gateBench = restate.workflow({
  name: 'gateBench',
  handlers: {
    run: async (ctx: restate.WorkflowContext, input: { readonly durable: boolean; readonly runs: number }) => {
      const durable = restatePort(ctx)
      const start = performance.now()
      for (let i = 0; i < input.runs; i++) await benchRun(input.durable ? prefixedPort(durable, String(i)) : undefined)
      return performance.now() - start
    },
  },
})

http2.createServer(restate.createEndpointHandler({ services: [gateBench] })).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'))
