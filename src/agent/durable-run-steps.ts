import { callAsPromise } from '../model/call-as-promise.ts'
import { isErrorValue } from '../model/error-value.ts'
import { messageOf } from '../model/message-of.ts'
import { sha256Hex } from '../model/sha256.ts'
import { raceAbort } from '../model/race-abort.ts'
import { runDeadline } from '../gate/run/run-deadline.ts'
import type { DurablePort } from '../durable/durable-port.ts'
import { DurableRunError, isDurableRunError } from '../durable/durable-run-error.ts'
import { bindDurableRun, digestOf, refuseDurableRun } from '../gate/run/durable-binding.ts'
import type { Message } from '../model/message.ts'
import { journaledResult, resultFromJournal } from './journaled-tool-result.ts'
import type { AnyTool, ToolContext } from './tools/tool.ts'
import { idempotencyKeyOf } from './turn-call-keys.ts'

/** A durable run's tool steps at one model turn: what a tool call's host carries. */
export interface DurableTurn {
  readonly tools: DurableToolSteps
  readonly turn: number
}

/**
 * The tool calls of one durable run as steps: each call is the step `tool:<turn>:<callId>`, and its
 * `execute` gets the idempotency key `<runId>:<turn>:<callId>`, the same on every replay. A call id
 * the model repeats within one turn is numbered by its position in the turn (`<callId>#2`, or the next
 * number no call of the turn took: see `turnCallKeys`), so each call keeps a step and a key of its own.
 * Argument validation, guards and re-asks run before, outside any step.
 */
export class DurableToolSteps {
  readonly port: DurablePort
  /** The keys (`<turn>:<callId>[#n]`) the run's calls took, in the order they were asked for (the same on every replay). */
  readonly #taken = new Set<string>()
  /** The contexts of the calls whose outcome the journal answered (they ran in an earlier process). */
  readonly #replayed = new WeakSet<ToolContext>()

  constructor(port: DurablePort) {
    this.port = port
  }

  /** These steps at model turn `turn`. */
  at(turn: number): DurableTurn {
    return { tools: this, turn }
  }

  /** Runs `tool.execute` on `value` as the step of the call keyed `at.key` of model turn `at.turn`; a replay answers the journaled outcome. */
  execute(tool: AnyTool, value: unknown, at: ToolCallAt & { readonly turn: number }): Promise<unknown> {
    const { ctx } = at
    // Keys are unique within a turn by construction; a step name is still never used twice in a run.
    const base = callKey(at.key)
    let numbered = base
    for (let n = 2; this.#taken.has(`${at.turn}:${numbered}`); n++) numbered = `${base}#${n}`
    const key = `${at.turn}:${numbered}`
    this.#taken.add(key)
    const idempotencyKey = idempotencyKeyOf(this.port.runId, at.turn, numbered)
    let ran = false
    const run = (): Promise<unknown> => {
      // A run that stopped (aborted, out of time) runs no tool and journals no outcome: a resumed run makes the call.
      if (stopped(ctx.signal)) return unjournaled()
      ran = true
      return callAsPromise(executeOf(tool), value, { ...ctx, idempotencyKey }).then(
        (result) => journaledResult(tool.name, result),
        (error: unknown) => (stopped(ctx.signal) ? unjournaled() : Promise.reject(error)),
      )
    }
    const step = `tool:${key}`
    return stepOf(this.port, step, run).then(
      (journaled) => {
        if (!ran) this.#replayed.add(ctx)
        return resultFromJournal(journaled, { runId: this.port.runId, step })
      },
      (error: unknown) => {
        // A failure the journal holds is a replay too; the journal refusing the run is not.
        if (!ran && !isDurableRunError(error)) this.#replayed.add(ctx)
        throw error
      },
    )
  }

  /** True when the call made with `ctx` was answered from the journal: its events carry `replayed: true`. */
  replayed(ctx: ToolContext): boolean {
    return this.#replayed.has(ctx)
  }
}

/**
 * A run's options with its durable port's tool steps, and the port's run id as the run's: a `runId`
 * of the caller's that is not the port's is refused (`TypeError`), so events and keys name one run.
 * The run's attempts are bound to its `input` (see `bindDurableRun`).
 */
export function withDurableTools<O extends { readonly runId?: string; readonly durable?: DurablePort }>(
  options: O,
  input: Message,
): O & { readonly durableTools?: DurableToolSteps } {
  const port = options.durable
  if (port === undefined) return options
  if (options.runId !== undefined && options.runId !== port.runId) {
    throw new TypeError(
      `agent.run: runId ${JSON.stringify(options.runId)} is not the durable port's run id ${JSON.stringify(port.runId)}: leave runId out, the port names the run`,
    )
  }
  // The run's attempts are bound to its input: a resume with another input diverges instead of replaying answers to another question.
  bindDurableRun(port, digestOf({ input: input.content }))
  return { ...options, runId: port.runId, durableTools: new DurableToolSteps(port) }
}

/** `tool.execute` on `value` in `ctx`: one step of a durable run, or a plain call without a port. */
export function executeTool(durable: DurableTurn | undefined, tool: AnyTool, value: unknown, at: ToolCallAt): Promise<unknown> {
  return durable === undefined ? callAsPromise(executeOf(tool), value, at.ctx) : durable.tools.execute(tool, value, { turn: durable.turn, ...at })
}

/** A tool call about to run: its key within its turn (see `turnCallKeys`) and the context its `execute` gets. */
export interface ToolCallAt {
  readonly key: string
  readonly ctx: ToolContext
}

/**
 * A stored session's commit (the store's `append`), with a port as the run's steps `session-base` (the
 * version the run was computed on, journaled) and `session-commit`: a resumed run does not append
 * again. `append` gets the journaled base: a process killed after the append but before the journal
 * write re-runs `session-commit` in a session reopened on the version holding its exchange, and only
 * the journaled base tells that version from the run's own.
 */
export async function commitStep<R>(
  durable: DurablePort | undefined,
  basedOn: number,
  append: (base: number) => R | PromiseLike<R>,
  signal: AbortSignal | undefined,
): Promise<R> {
  if (durable === undefined) return Promise.resolve().then(() => append(basedOn))
  const journaled = await stepOf(durable, 'session-base', async () => basedOn)
  // A port of yours answering something else than the version it was given: the run's own base.
  const base = Number.isSafeInteger(journaled) && journaled >= 0 ? journaled : basedOn
  // A run that stopped (aborted, out of time) appends nothing and journals no outcome: a resumed run commits. A store
  // that failed to append journals no outcome either (journaled, its failure would answer every resume, which could
  // then never commit): the run fails with it now, and a resume appends again on the journaled base.
  let failWith: (error: unknown) => void = ignore
  const failed = new Promise<never>((_, reject) => {
    failWith = reject
  })
  const commit = (): Promise<R> =>
    stopped(signal)
      ? unjournaled()
      : Promise.resolve()
          .then(() => append(base))
          .catch((error: unknown) => {
            if (!stopped(signal)) failWith(error)
            return unjournaled()
          })
  return Promise.race([stepOf(durable, 'session-commit', commit), failed])
}

function ignore(): void {}

/**
 * The journaled start of a durable run under a deadline of `ms`, the step `start`: the wall clock when
 * the run first started (a resumed run anchors its deadline to it). One that is no clock reading is a
 * `corrupt-entry`. The step is bounded like the run: a port that has not answered it within `ms`
 * answers a start `ms` ago (the run fails as `run-timeout` before it calls anything), and one the
 * caller's `signal` aborted first answers now (the run fails as `aborted`). A start the journal refuses
 * (corrupt, diverged, the engine failing) answers now and refuses the run: its first gate call fails
 * fast with kind `durable-journal` before any provider call (see `refuseDurableRun`).
 */
export function journaledStart(port: DurablePort, ms: number, signal: AbortSignal | undefined): Promise<number> {
  const bound = runDeadline(ms, signal)
  const started = stepOf(port, 'start', async () => Date.now()).then((at) => {
    if (typeof at === 'number' && Number.isFinite(at)) return at
    throw new DurableRunError('corrupt-entry', { runId: port.runId, step: 'start', reason: 'the journaled start is no clock reading' })
  })
  return raceAbort(started, bound.signal).then(
    (at) => {
      bound.clear()
      return at
    },
    (error: unknown) => {
      bound.clear()
      if (bound.signal.aborted) return bound.expired ? Date.now() - ms : Date.now()
      // A port of yours that throws is the engine failing, as it is for a gate run's start.
      const refusal = isDurableRunError(error)
        ? error
        : new DurableRunError('engine-failed', { runId: port.runId, step: 'start', reason: `the port failed: ${messageOf(error)}`, cause: error })
      refuseDurableRun(port, refusal)
      return Date.now()
    },
  )
}

/** True for the port's refusal (a divergent replay, a corrupted entry): the run stops, the model is not told. */
export const stopsDurableRun = isDurableRunError

/** `port.step(name, fn)` as a promise: a port of yours that throws or answers a plain value is still one rejection or one value. */
function stepOf<R>(port: DurablePort, name: string, fn: () => Promise<R>): Promise<R> {
  return callAsPromise((n: string, f: () => Promise<R>) => port.step(n, f), name, fn)
}

/** Call ids (the model's words) longer than this are named in steps and keys by their SHA-256. */
const MAX_CALL_KEY = 128

/**
 * A call's key as its step and idempotency key name it: the call id the model wrote (numbered when repeated), or
 * `~` and its SHA-256 when longer than {@link MAX_CALL_KEY} characters (a step name is at most 256: a long id would
 * have failed the run, which runs without a port; and an idempotency key stays short enough for a payments API).
 */
function callKey(key: string): string {
  return key.length <= MAX_CALL_KEY ? key : `~${sha256Hex(key)}`
}

/** True once the run's `signal` aborted (the caller, or its deadline): what its steps do from then on is no outcome of theirs. */
function stopped(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

/** A step's answer that never comes: the run stopped (it has settled without it), and the engine journals nothing. */
function unjournaled(): Promise<never> {
  return new Promise<never>(() => {})
}

function executeOf(tool: AnyTool): (value: unknown, ctx: ToolContext) => Promise<unknown> {
  // An Error the tool returns is its failure, as one it throws is: the model hears its message (never
  // `{}`, the JSON of an Error), the call is `execute-failed`, and a durable step journals a failure.
  return (value, ctx) => Promise.resolve(tool.execute(value, ctx)).then(failedIfError)
}

function failedIfError(result: unknown): unknown {
  if (isErrorValue(result)) throw result
  return result
}
