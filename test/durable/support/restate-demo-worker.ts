// The demo agent as a Restate workflow, in its own process:
// node restate-demo-worker.ts <port> <kill|resume> <redisPort> <providerBaseURL>
// With `kill`, the run SIGKILLs this process at its input's kill point (any step); with `resume`, it runs to the end.
import http2 from 'node:http2'
import * as restate from '@restatedev/restate-sdk'
import { Redis } from 'ioredis'
import { restatePort } from '../../../src/restate.ts'
import { demoAgent, killAtStep } from './demo-agent.ts'

const [port, mode, redisPort, baseURL] = process.argv.slice(2) as [string, 'kill' | 'resume', string, string]
const redis = new Redis({ host: '127.0.0.1', port: Number(redisPort), maxRetriesPerRequest: 1 })

const demoRun = restate.workflow({
  name: 'demoRun',
  handlers: {
    run: async (ctx: restate.WorkflowContext, input: { readonly seed: number; readonly killAt: number }) => {
      const durable = killAtStep(restatePort(ctx), mode === 'kill' ? input.killAt : -1)
      return demoAgent({ baseURL, seed: input.seed, runId: durable.runId, redis }).run(durable)
    },
  },
})

http2.createServer(restate.createEndpointHandler({ services: [demoRun] })).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'))
