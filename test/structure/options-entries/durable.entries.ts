import { durablePort, memoryDurablePort } from '../../../src/durable.ts'
import { sendApproval } from '../../../src/dbos.ts'
import { resolveApproval } from '../../../src/restate.ts'
import type { OptionsEntry } from './entry.ts'

const APPROVAL = `apr_${'0'.repeat(32)}`
/** A workflow promise and a sender that fail the test if reached: a decision is checked before the engine is asked. */
const unreachable = (): never => {
  throw new Error('the decision check must run before the engine is asked')
}
const ctx = { promise: () => ({ peek: unreachable, resolve: unreachable }) }
const sender = { send: unreachable }

const engine = { runId: 'entry', run: () => Promise.resolve(undefined), sleep: () => Promise.resolve() }

/** The durable ports' factories: the in-memory port and the port over any engine. */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'memoryDurablePort',
    covers: ['durable:memoryDurablePort'],
    keys: ['runId', 'journal'],
    call: (options) => memoryDurablePort({ runId: 'entry', ...options } as never),
  },
  {
    name: 'approval decision (resolveApproval)',
    covers: ['restate:resolveApproval'],
    keys: ['approved', 'reason', 'argsDigest'],
    call: (options) => resolveApproval(ctx as never, APPROVAL, { approved: true, ...options } as never),
  },
  {
    name: 'approval decision (sendApproval)',
    covers: ['dbos:sendApproval'],
    keys: ['approved', 'reason', 'argsDigest'],
    call: (options) => sendApproval('refund-1', APPROVAL, { approved: true, ...options } as never, sender as never),
  },
  {
    name: 'durablePort',
    covers: ['durable:durablePort'],
    keys: ['runId', 'run', 'sleep', 'signal'],
    call: (options) => durablePort({ ...engine, ...options } as never),
  },
]
