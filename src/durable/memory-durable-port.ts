import { setTimeout as wait } from 'node:timers/promises'
import { option, optionsContract } from '../model/options-contract.ts'
import type { DurablePort } from './durable-port.ts'
import { durablePort } from './durable-port-of.ts'
import { decodeEntry, foreignRun, type StepPosition } from './journal-codec.ts'

/** What {@link memoryDurablePort} takes. */
export interface MemoryDurablePortOptions {
  /** The run's id, the same for every port that replays this journal. */
  readonly runId: string
  /**
   * The run's journal, one JSON text per step or sleep, appended to as the run goes: hand the same
   * array to a new port to replay the run (as an engine would after a crash). @default a new, empty journal
   */
  readonly journal?: string[]
}

const OPTIONS = optionsContract<MemoryDurablePortOptions>('memoryDurablePort', {
  runId: option.nonEmptyString(),
  journal: option.array(),
})

/**
 * A {@link DurablePort} whose journal is an array of JSON texts in this process: for tests, and for
 * runs that want the tool-step contract (idempotency keys, one effect per step) without an engine. A
 * second port over the same journal replays it: finished steps answer their journaled outcome; a step
 * past the journal's end runs and is appended (two ports resuming it at once keep one entry per
 * position: the first outcome journaled answers both). An entry naming another run is a `divergence`.
 *
 * @example
 * const journal: string[] = []
 * await agent.run('refund order 42', { durable: memoryDurablePort({ runId: 'order-42', journal }) })
 * // after a crash: the same journal, the same runId; finished tool steps are not run again
 * await agent.run('refund order 42', { durable: memoryDurablePort({ runId: 'order-42', journal }) })
 */
export function memoryDurablePort(options: MemoryDurablePortOptions): DurablePort {
  const { runId, journal = [] } = OPTIONS.check(options)
  let next = 0
  return durablePort({
    runId,
    async run(name, action) {
      const at = next++
      if (at < journal.length) return ownEntry({ runId, seq: at, name }, journal[at])
      const text = JSON.stringify(await action())
      // Another port on this journal (a second resume running at once) wrote this position first: its outcome is the
      // step's, as an engine keeps the first one journaled; appended again, the journal would hold the position twice.
      if (at < journal.length) return journal[at]
      journal.push(text)
      return text
    },
    async sleep(name, ms, signal) {
      const at = next++
      // A sleep is journaled as the step of its name that answered nothing: a replay checks its place and name.
      if (at < journal.length) {
        decodeEntry({ runId, seq: at, name }, ownEntry({ runId, seq: at, name }, journal[at]))
        return
      }
      // The run's abort ends the wait (no timer outlives the run) and journals no sleep: a resume waits again.
      await wait(ms, undefined, signal === undefined ? undefined : { signal })
      if (at < journal.length) {
        decodeEntry({ runId, seq: at, name }, journal[at])
        return
      }
      journal.push(JSON.stringify({ v: 1, runId, seq: at, name, ok: true }))
    },
  })
}

/** The journal's entry at `at`, refused (`divergence`) when it names another run: the array was handed over as data. */
function ownEntry(at: StepPosition, entry: unknown): unknown {
  const foreign = foreignRun(at, entry)
  if (foreign !== undefined) throw foreign
  return entry
}
