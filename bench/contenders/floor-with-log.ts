import type { ModelResponse } from '../../src/index.ts'
import { USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { isRateLimited } from '../support/failover.ts'
import { script, toModelResponse } from '../support/script.ts'
import type { Contender, Runnable } from './contender.ts'
import { FLOOR_WITH_LOG } from '../targets.ts'
import { floorCheck, floorValidator, MAX_ATTEMPTS, REJECTED, type FloorMessage } from './floor.ts'

const NONE: readonly never[] = []
const now = performance.now.bind(performance)
let runs = 0

/** One hand-written run: its conversation, its log and where it stands. */
interface LoggedRun {
  readonly runId: string
  readonly started: number
  readonly messages: FloorMessage[]
  readonly attempts: Record<string, unknown>[]
  current: number
  attempt: number
  attemptStarted: number
}

/**
 * The floor's loop with the parts of the gate's contract that cost time and memory whatever the
 * library: an async provider (`complete(request)` resolving to a response, as the gate's providers
 * do), a run id, two clock reads per attempt, one attempt log entry per attempt with the gate's 21
 * fields, and a result object with the gate's fields. No events, no rules, no repair, no metering.
 * Written as a careful user would (promise reactions, no async function, one state object per run).
 * It is a reference row, not a target: what the contract costs when written by hand around the floor.
 */
export const floorWithLog: Contender = {
  name: FLOOR_WITH_LOG,
  prepare(scenario: Scenario): Runnable {
    const tool = scenario.id === 'd'
    const primary = script(scenario.primary, toModelResponse)
    const secondary = script(scenario.secondary ?? scenario.primary, toModelResponse)
    const providers = (scenario.id === 'e' ? [primary, secondary] : [primary]).map((answers) => ({
      complete: async (_messages: readonly FloorMessage[]): Promise<ModelResponse> => answers.next(),
    }))
    const validator = floorValidator(tool)
    const feedbackRole = tool ? 'tool' : 'user'

    const attempt = (r: LoggedRun): Promise<unknown> => {
      r.attempt++
      r.attemptStarted = r.attempt === 1 ? r.started : now()
      return (providers[r.current] as (typeof providers)[number]).complete(r.messages).then(
        (response) => answered(r, response),
        (error: unknown) => failed(r, error),
      )
    }
    const answered = (r: LoggedRun, response: ModelResponse): unknown => {
      const raw = tool ? JSON.stringify(response.toolCalls[0]?.args) : response.content
      const value = floorCheck(raw, validator, feedbackRole, r.messages)
      const t1 = now()
      const record = entry(r.attempt, r.current, value === REJECTED ? 'schema_error' : 'success', response, undefined, t1 - r.attemptStarted, t1 - r.started)
      r.attempts.push(record)
      if (value !== REJECTED) {
        const provider = r.current === 0 ? 'primary' : 'secondary'
        return {
          runId: r.runId,
          response,
          value,
          attempts: r.attempts,
          lastAttempt: record,
          usage: response.usage,
          costUsd: 0,
          provider,
          fromFallback: false,
          warnings: undefined,
        }
      }
      if (r.attempt < MAX_ATTEMPTS) return attempt(r)
      throw new Error(`no valid answer after ${MAX_ATTEMPTS} attempts`)
    }
    const failed = (r: LoggedRun, error: unknown): unknown => {
      const t1 = now()
      r.attempts.push(entry(r.attempt, r.current, 'rate_limit', undefined, error, t1 - r.attemptStarted, t1 - r.started))
      if (!isRateLimited(error) || r.current + 1 >= providers.length || r.attempt >= MAX_ATTEMPTS) throw error
      r.current++
      return attempt(r)
    }
    return {
      call: () => {
        primary.reset()
        secondary.reset()
        const started = now()
        const messages: FloorMessage[] = [{ role: 'user', content: USER_MESSAGE }]
        return attempt({ runId: `run_${(++runs).toString(36)}`, started, messages, attempts: [], current: 0, attempt: 0, attemptStarted: started })
      },
      unwrap: (result) => (result as { value: unknown }).value,
    }
  },
}

/** One attempt log entry with the fields of the gate's `AttemptRecord`. */
function entry(
  attempt: number,
  providerIdx: number,
  status: string,
  response: ModelResponse | undefined,
  error: unknown,
  latencyMs: number,
  elapsedMs: number,
): Record<string, unknown> {
  const ok = status === 'success'
  return {
    attempt,
    provider: providerIdx === 0 ? 'primary' : 'secondary',
    model: undefined,
    status,
    errorKind: ok ? 'ok' : status,
    rawOutput: response?.content,
    validationStage: undefined,
    issues: NONE,
    errorType: undefined,
    errors: NONE,
    error,
    decision: ok ? 'ok' : 'retry',
    ruleKind: ok ? 'ok' : status,
    ruleLabel: undefined,
    feedbackSent: undefined,
    repaired: false,
    latencyMs,
    elapsedMs,
    usage: response?.usage,
    costUsd: 0,
    unpriced: false,
  }
}
