import { Compile } from 'typebox/compile'
import type { ModelResponse } from '../../src/index.ts'
import { LookupArgs, Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { isRateLimited } from '../support/failover.ts'
import { script, toModelResponse } from '../support/script.ts'
import type { Contender, Runnable } from './contender.ts'
import { FLOOR_WITH_LOG } from '../targets.ts'
import { floorCheck, REJECTED, type FloorMessage } from './floor.ts'

const refund = Compile(Refund)
const lookupArgs = Compile(LookupArgs)
const MAX_ATTEMPTS = 3
const NONE: readonly never[] = []
const now = performance.now.bind(performance)
let runs = 0

/**
 * The floor's loop with the parts of the gate's contract that cost memory whatever the library: an
 * async provider (`complete(request)` resolving to a response, as the gate's providers do), a run id,
 * two clock reads per attempt, one attempt log entry per attempt with the gate's 21 fields, and a
 * result object with the gate's fields. No events, no rules, no repair, no metering. It is a
 * reference row, not a target: it shows how much of the gap to the floor the contract itself costs.
 */
export const floorWithLog: Contender = {
  name: FLOOR_WITH_LOG,
  prepare(scenario: Scenario): Runnable {
    const tool = scenario.id === 'd'
    const primary = script(scenario.primary, toModelResponse)
    const secondary = script(scenario.secondary ?? scenario.primary, toModelResponse)
    const providers = (scenario.id === 'e' ? [primary, secondary] : [primary]).map((answers, i) => ({
      name: i === 0 ? 'primary' : 'secondary',
      complete: async (_messages: readonly FloorMessage[]): Promise<ModelResponse> => answers.next(),
    }))
    const validator = tool ? lookupArgs : refund
    const feedbackRole = tool ? 'tool' : 'user'
    const run = async (): Promise<unknown> => {
      const runId = `run_${(++runs).toString(36)}`
      const started = now()
      const messages: FloorMessage[] = [{ role: 'user', content: USER_MESSAGE }]
      const attempts: Record<string, unknown>[] = []
      let current = 0
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const t0 = attempt === 1 ? started : now()
        let response: ModelResponse
        try {
          response = await (providers[current] as (typeof providers)[number]).complete(messages)
        } catch (error) {
          const t1 = now()
          attempts.push(entry(attempt, current, 'rate_limit', undefined, error, t1 - t0, t1 - started))
          if (isRateLimited(error) && current + 1 < providers.length) {
            current++
            continue
          }
          throw error
        }
        const raw = tool ? JSON.stringify(response.toolCalls[0]?.args) : response.content
        const value = floorCheck(raw, validator, feedbackRole, messages)
        const t1 = now()
        const record = entry(attempt, current, value === REJECTED ? 'schema_error' : 'success', response, undefined, t1 - t0, t1 - started)
        attempts.push(record)
        if (value !== REJECTED) {
          return {
            runId,
            response,
            value,
            attempts,
            lastAttempt: record,
            usage: response.usage,
            costUsd: 0,
            provider: 'primary',
            fromFallback: false,
            warnings: undefined,
          }
        }
      }
      throw new Error(`no valid answer after ${MAX_ATTEMPTS} attempts`)
    }
    return {
      call: () => {
        primary.reset()
        secondary.reset()
        return run()
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
