import type { DurableRunError } from '../../durable/durable-run-error.ts'
import type { ModelRequest } from '../../model/request.ts'
import { sha256Hex } from '../../model/sha256.ts'
import { stableKey } from '../../model/stable-key.ts'

/**
 * The identity of the question an attempt asks: the SHA-256 (64 hex digits) of the canonical JSON
 * (keys sorted at every depth) of its system prompt, messages (the ephemeral tail included), tools
 * and tool choice. How it is asked is left out (the model, the output mode and its schemas, the token
 * limit: a resumed process may settle those otherwise, e.g. without an output mode another run
 * demoted), and so is the signal. `undefined` for a request JSON cannot write (a bigint, a cycle):
 * such an attempt is journaled unbound.
 */
export function requestDigest(request: ModelRequest): string | undefined {
  return digestOf({ system: request.system, messages: request.messages, tools: request.tools, toolChoice: request.toolChoice })
}

/** The SHA-256 (64 hex digits) of `value`'s canonical JSON (keys sorted at every depth); `undefined` when JSON cannot write it. */
export function digestOf(value: unknown): string | undefined {
  let text: string
  try {
    text = stableKey(value)
  } catch {
    return undefined
  }
  return sha256Hex(text)
}

// What the durable runs of an agent are bound to, by port: the digest of the run's input (see `bindDurableRun`).
const bindings = new WeakMap<object, string>()

/**
 * Binds the attempts of the run on `port` whose requests are not bound themselves (an agent's turns, see
 * `DurableAttempts`) to `digest`, the identity of the run's input: a resume with another input diverges at its first
 * journaled attempt instead of answering the journaled answers to another question.
 */
export function bindDurableRun(port: object, digest: string | undefined): void {
  if (digest === undefined) bindings.delete(port)
  else bindings.set(port, digest)
}

/** What the run on `port` is bound to (see {@link bindDurableRun}), if anything. */
export function durableRunBinding(port: object): string | undefined {
  return bindings.get(port)
}

// The journal's refusal of a run before its first gate call (an agent run's `start` step), by port.
const refusals = new WeakMap<object, DurableRunError>()

/**
 * Records that the journal refused the run on `port` before any gate call (an agent run's journaled start was corrupt
 * or diverged): each gate call of the run then fails fast with kind `durable-journal`, its cause `error`, before any
 * provider call, as a gate run refused at its own start does.
 */
export function refuseDurableRun(port: object, error: DurableRunError): void {
  refusals.set(port, error)
}

/** The journal's refusal of the run on `port` (see {@link refuseDurableRun}), if any. */
export function durableRunRefusal(port: object): DurableRunError | undefined {
  return refusals.get(port)
}
