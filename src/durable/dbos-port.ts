import { DBOS } from '@dbos-inc/dbos-sdk'
import type { DurablePort } from './durable-port.ts'
import { durablePort } from './durable-port-of.ts'

/**
 * A {@link DurablePort} over the DBOS workflow this is called in: each step is one `DBOS.runStep`
 * with DBOS's retries off (the step journals its failure as data, and only the gate's rules retry),
 * each sleep one `DBOS.sleep`, each `awaitSignal(name, ms)` one `DBOS.recv` on topic `name` (a tool
 * call's approval: sent with `sendApproval`). The run's id is the workflow's id. Called outside a workflow, it
 * throws a `TypeError`.
 *
 * @example
 * import { DBOS } from '@dbos-inc/dbos-sdk'
 * import { dbosPort } from 'reliability-gate/dbos'
 *
 * const refund = DBOS.registerWorkflow(async (order: string) => agent.run(`refund ${order}`, { durable: dbosPort() }), { name: 'refund' })
 */
export function dbosPort(): DurablePort {
  const runId = DBOS.workflowID
  if (runId === undefined || runId === '') throw new TypeError('dbosPort: call it inside a DBOS workflow (DBOS.workflowID is undefined here)')
  return durablePort({
    runId,
    run: (name, action) => DBOS.runStep(action, { name, retriesAllowed: false }),
    sleep: (_name, ms) => DBOS.sleep(ms),
    signal: async (name, ms) => {
      // DBOS.recv journals what it received (or its timeout): a recovered workflow gets the same answer.
      const value = await DBOS.recv<unknown>(name, { timeoutSeconds: ms / 1000 })
      return value === null ? { received: false } : { received: true, value }
    },
  })
}
