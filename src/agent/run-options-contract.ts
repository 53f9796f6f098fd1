import type { GateStreamOptions } from '../gate/stream/index.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { DURABLE_OPTION as DURABLE, RUN_OPTION_CHECKS } from '../gate/run-options-contract.ts'
import type { RunOptions } from './run-input.ts'

/**
 * The options of one agent run (`agent.run`, `runTyped`, `runDetailed`, `session.run`), declared
 * once: a misspelt key (`singal`, `runTimoutMs`) is refused with "did you mean" before the run starts.
 */
export const AGENT_RUN_OPTIONS = optionsContract<RunOptions>('agent.run', { ...RUN_OPTION_CHECKS, durable: DURABLE })

/** The options of `agent.stream` and `session.stream`: a run's, and the stream's `mode`. */
export const AGENT_STREAM_OPTIONS = optionsContract<RunOptions & Pick<GateStreamOptions, 'mode'>>('agent.stream', {
  ...RUN_OPTION_CHECKS,
  durable: DURABLE,
  mode: option.oneOf('passthrough', 'buffer', 'progressive'),
})

/** Why `agent.stream` refuses a durable port. */
export const DURABLE_STREAM =
  'agent.stream: a durable run cannot be streamed (its model calls would not be journaled, and a replayed turn could not deliver its deltas again); use agent.runDetailed(input, { durable })'
