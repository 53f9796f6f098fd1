import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from 'typebox'
import type { DurablePort } from '../../../src/durable.ts'
import { createGate, type GateEvent, ProviderError, type ReliabilityRule, retryTransient, strictOutputRules } from '../../../src/index.ts'
import { scripted, type ScriptedStep } from '../../../src/providers/index.ts'

/** What the gate workflow answers: the value, each attempt's kind, and each attempt_end this process emitted with its replayed mark. */
export interface GateWorkflowResult {
  readonly runId: string
  readonly value: unknown
  readonly kinds: readonly string[]
  readonly ends: readonly (readonly [number, boolean])[]
}

const Amount = Type.Object({ amount: Type.Integer() }, { additionalProperties: false })

/**
 * The workflow both engines run: one durable gate run whose provider answers, by the calls it has had
 * so far across processes (`<dir>/calls`, one line per call), an invalid answer, a 503, then a valid
 * one. While `<dir>/hold` exists, the run holds between attempts 2 and 3 (a PreCheck rule, outside any
 * step) after saying so (`<dir>/between`): the test SIGKILLs the process there.
 */
export async function gateWorkflow(port: DurablePort, dir: string): Promise<GateWorkflowResult> {
  const calls = join(dir, 'calls')
  const answers: ScriptedStep[] = ['not json', new ProviderError('overloaded', { kind: 'http-5xx', status: 503 }), '{"amount": 3}']
  const counted: ScriptedStep = () => {
    const n = existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0
    appendFileSync(calls, `${n + 1}\n`)
    return answers[n] ?? '{"amount": 99}'
  }
  const hold: ReliabilityRule = {
    // PreCheck before attempt 3 (two attempts made): an async `when` the gate awaits, here never answered.
    when: (scope) => {
      if (scope.attempt !== 2 || !existsSync(join(dir, 'hold'))) return false
      writeFileSync(join(dir, 'between'), '')
      return new Promise<boolean>(() => {}) as unknown as boolean
    },
    then: 'fail-fast',
    kind: 'held',
  }
  const gate = createGate({
    providers: scripted(Array.from({ length: 10 }, () => counted)),
    outputSchema: Amount,
    preCheck: [hold],
    postDecide: [retryTransient({ backoff: { initialMs: 10, maxMs: 20 } }), ...strictOutputRules(5)],
    runTimeoutMs: 600_000,
    durable: port,
  })
  const events: GateEvent[] = []
  gate.on('attempt_end', (e) => events.push({ type: 'attempt_end', ...e }))
  const result = await gate.run({ messages: [{ role: 'user', content: 'how much?' }] })
  return {
    runId: result.runId,
    value: result.value,
    kinds: result.attempts.map((a) => a.errorKind),
    ends: events.map((e) => [(e as { attempt: number }).attempt, e.replayed === true] as const),
  }
}
