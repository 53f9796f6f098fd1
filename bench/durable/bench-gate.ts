import type { DurablePort } from '../../src/durable.ts'
import { createGate, strictOutputRules } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { Refund, validRefundJson } from '../../test/support/schemas.ts'

/** The attempts of one bench run: an answer the schema rejects, then, with the feedback, a valid one. */
export const ATTEMPTS_PER_RUN = 2

const INVALID = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'
const request = { messages: [{ role: 'user' as const, content: 'refund order 42' }] }

/**
 * One gate run of two attempts (a schema retry with feedback) on a scripted provider that answers at
 * once: what is left to time is the gate itself, and the step around each attempt when `durable` is given.
 */
export async function benchRun(durable?: DurablePort): Promise<unknown> {
  const steps: ScriptedStep[] = [INVALID, validRefundJson]
  const gate = createGate({ providers: scripted(steps), model: 'm', outputSchema: Refund, postDecide: strictOutputRules(3) })
  const result = await gate.run(request, durable === undefined ? undefined : { durable })
  if (result.attempts.length !== ATTEMPTS_PER_RUN) throw new Error(`a bench run made ${result.attempts.length} attempts, not ${ATTEMPTS_PER_RUN}`)
  return result.value
}

/** `port` with each step and sleep named under `prefix`: several gate runs in one engine workflow, each with steps of its own. */
export function prefixedPort(port: DurablePort, prefix: string): DurablePort {
  return {
    runId: `${port.runId}:${prefix}`,
    step: (name, fn) => port.step(`${prefix}:${name}`, fn),
    sleep: (name, ms) => port.sleep(`${prefix}:${name}`, ms),
  }
}

/** The median of `values` (and its 25th and 75th percentiles). */
export function quartiles(values: readonly number[]): { readonly median: number; readonly p25: number; readonly p75: number } {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
  return { median: at(0.5), p25: at(0.25), p75: at(0.75) }
}
