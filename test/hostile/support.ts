import type { Agent, GateEventMap, Message } from '../../src/index.ts'
import type { GateEventName } from '../../src/events/index.ts'
import { GATE_EVENT_NAMES } from '../../src/events/event-names.ts'

/** Every event the gate and the agent emit. */
export const EVENT_NAMES: readonly GateEventName[] = GATE_EVENT_NAMES

/** What one run produced: its value or error, its events by name, and the session's history after it. */
export interface Observed<T> {
  readonly value: T | undefined
  readonly error: unknown
  readonly events: { readonly [K in GateEventName]: readonly GateEventMap[K][] }
  readonly history: readonly Message[]
}

/** Records every event of an agent (or gate) into lists by name; returns them and the unsubscribe. */
export function recordEvents(target: { on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void }) {
  const events = Object.fromEntries(EVENT_NAMES.map((n) => [n, [] as unknown[]])) as unknown as { [K in GateEventName]: GateEventMap[K][] }
  const stops = EVENT_NAMES.map((n) => target.on(n, (e) => (events[n] as unknown[]).push(e)))
  return {
    events,
    stop: () => {
      for (const s of stops) s()
    },
  }
}

/** Runs `input` once on a fresh session of `agent` and observes everything. */
export async function observeRun<T>(agent: Agent<T>, input: string, signal?: AbortSignal): Promise<Observed<T>> {
  const { events, stop } = recordEvents(agent)
  const session = agent.session()
  let value: T | undefined
  let error: unknown
  try {
    value = await session.runTyped(input, signal === undefined ? undefined : { signal })
  } catch (e) {
    error = e
  } finally {
    stop()
  }
  return { value, error, events, history: session.history }
}

/** True when no message of `history` is ephemeral. */
export function noEphemeral(history: readonly Message[]): boolean {
  return history.every((m) => m.ephemeral !== true)
}
