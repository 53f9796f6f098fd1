import { option, optionsContract } from '../model/options-contract.ts'
import type { DurablePort } from '../durable/durable-port.ts'
import type { RunDeadline } from '../gate/run/run-deadline.ts'
import type { DurableToolSteps } from './durable-run-steps.ts'
import type { RunResume } from './approval/run-pause.ts'

/** Input of one agent run: the user's message, as a string or an object. */
export type RunInput = string | { readonly message: string }

/** Options of one agent run. */
export interface RunOptions {
  /** Aborts the run: the gate settles at once with kind `aborted`; the history is left unchanged. */
  readonly signal?: AbortSignal
  /** The run's id on every event, the result and the error. @default a new unique id */
  readonly runId?: string
  /** The caller's facts about this run (tenant, request id, ...), handed to middleware as `ctx.metadata`. */
  readonly metadata?: Readonly<Record<string, unknown>>
  /**
   * The deadline of the whole run: every model call, retry and wait, every tool's `execute`, and the
   * commit of a stored session. Past it the run fails with kind `run-timeout` and nothing is
   * committed. Whole milliseconds from 1 to 2^31-1. @default the agent's `reliability({ runTimeoutMs })`, else none
   */
  readonly runTimeoutMs?: number
  /**
   * The run's durable-execution port (`restatePort(ctx)`, `dbosPort()`, `memoryDurablePort(...)`):
   * each tool call runs as one step (`tool:<turn>:<callId>`) whose `execute` gets an
   * `idempotencyKey`, and a stored session's commit is one step, so a resumed run does not run a
   * finished tool or commit again. The run's id is the port's (a different `runId` is refused).
   */
  readonly durable?: DurablePort
}

/**
 * An agent run's options as its session hands them: the caller's, and the run's deadline when it
 * has one (`runTimeoutMs`, started once for the whole run; its signal joins the caller's). Every
 * wait of the run reads that one signal: its gate calls (which share the deadline, so a call it stops
 * fails as `run-timeout`), its tools' `execute`, its output fallback, and its session's commit.
 */
export interface AgentRunOptions extends RunOptions {
  readonly deadline?: RunDeadline | undefined
  /** The durable port's tool steps, made once per run (see `withDurableTools`). */
  readonly durableTools?: DurableToolSteps | undefined
  /** A run resumed from an approval's pause goes on from the paused call (see `session.resume`). */
  readonly resume?: RunResume | undefined
  /** A durable run's journaled start (ms since the epoch): its deadline runs from there, on a resume too. */
  readonly startedAt?: number | undefined
}

/** The input object's contract, per entry: a key it does not hold (`role`, `messages`) is refused with "did you mean". */
const RUN_INPUT = optionsContract<{ readonly message: string }>('agent.run: input', { message: option.string() })
const STREAM_INPUT = optionsContract<{ readonly message: string }>('agent.stream: input', { message: option.string() })

/**
 * Reads the user message out of a run input (of `agent.run` and the other runs, or of
 * `agent.stream`: `entry`), rejecting anything else with a clear error: an object through its
 * contract (`{ message: 'x', role: 'user' }` is refused, never half read), its `message` read once.
 */
export function messageOf(input: RunInput, entry: 'agent.run' | 'agent.stream' = 'agent.run'): string {
  if (typeof input === 'string') return input
  if (typeof input === 'object' && input !== null) {
    const { message } = (entry === 'agent.run' ? RUN_INPUT : STREAM_INPUT).check(input)
    if (typeof message === 'string') return message
  }
  throw new TypeError(`${entry}: input must be a string or { message: string }`)
}
