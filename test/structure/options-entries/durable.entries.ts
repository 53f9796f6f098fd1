import { durablePort, memoryDurablePort } from '../../../src/durable.ts'
import type { OptionsEntry } from './entry.ts'

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
    name: 'durablePort',
    covers: ['durable:durablePort'],
    keys: ['runId', 'run', 'sleep', 'signal'],
    call: (options) => durablePort({ ...engine, ...options } as never),
  },
]
