import { frozenMessages } from '../model/frozen-copy.ts'
import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import { frozenWithTail } from './ephemeral-tail.ts'
import type { RunView } from './run/run-view.ts'

/** The frozen copies of a run's base messages, and the array they were copied from. */
interface FrozenBase {
  readonly source: readonly Message[]
  readonly frozen: readonly Message[]
}

// Per run, not per request: a caller may edit its history between two runs of the same request, and
// each run sends what the history holds when it starts.
const frozenBases = new WeakMap<object, FrozenBase>()

/**
 * The request of the run's next attempt as user code receives it (middleware, `attempt_start`
 * listeners): `frozenRequest(withTail(run.base, run.tail))`, with the base messages copied and frozen
 * once per run instead of once per attempt. A retry then copies only its tail (and joins lazily past
 * a few dozen messages), so it costs the same for 10 or 10,000 messages of history.
 */
export function frozenAttemptRequest<T>(run: RunView<T>): ModelRequest {
  const base = run.base
  let memo = frozenBases.get(run)
  if (memo?.source !== base.messages) {
    memo = { source: base.messages, frozen: frozenMessages(base.messages) }
    frozenBases.set(run, memo)
  }
  if (run.tail.length === 0) return Object.freeze({ ...base, messages: memo.frozen })
  return frozenWithTail({ ...base, messages: memo.frozen }, frozenMessages(run.tail))
}
