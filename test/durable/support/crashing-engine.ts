import { durablePort } from '../../../src/durable.ts'
import type { DurablePort } from '../../../src/durable.ts'
import { decodeEntry } from '../../../src/durable/journal-codec.ts'

/** What a crashing engine did: the sleeps it slept (replayed ones are not slept again). */
export interface CrashingEngine {
  readonly port: DurablePort
  readonly sleeps: { readonly name: string; readonly ms: number }[]
  /** The names of the steps and sleeps whose action ran in this "process". */
  readonly ran: string[]
}

/**
 * A journaled engine over `journal` (one JSON text per step or sleep, as `memoryDurablePort` keeps it)
 * whose process "dies" at position `crashAt`: the step there still runs its action (the call in
 * flight), but its entry is never written and the engine rejects, as a SIGKILL before the journal
 * write would leave it; a sleep there dies before it sleeps. Sleeps are recorded, not waited.
 */
export function crashingEngine(runId: string, journal: string[], crashAt?: number): CrashingEngine {
  const sleeps: { name: string; ms: number }[] = []
  const ran: string[] = []
  let next = 0
  const port = durablePort({
    runId,
    async run(name, action) {
      const at = next++
      if (at < journal.length) return journal[at]
      ran.push(name)
      const entry = await action()
      if (crashAt !== undefined && at >= crashAt) throw new Error(`process killed before step ${name} was journaled`)
      journal.push(JSON.stringify(entry))
      return journal[at]
    },
    async sleep(name, ms) {
      const at = next++
      if (at < journal.length) {
        decodeEntry({ runId, seq: at, name }, journal[at])
        return
      }
      if (crashAt !== undefined && at >= crashAt) throw new Error(`process killed while sleeping ${name}`)
      ran.push(name)
      sleeps.push({ name, ms })
      journal.push(JSON.stringify({ v: 1, seq: at, name, ok: true }))
    },
  })
  return { port, sleeps, ran }
}

/** The step and sleep names of a journal, in order. */
export const stepNames = (journal: readonly string[]): string[] => journal.map((entry) => (JSON.parse(entry) as { name: string }).name)
