import { Type } from 'typebox'
import type { DurablePort } from '../../../src/durable.ts'
import { Agent, tool } from '../../../src/index.ts'
import { scripted, type ScriptedStep } from '../../../src/providers/index.ts'
import type { ToolCall } from '../../../src/model/index.ts'

/** A seeded run of the fault sweep: the model's tool turns (each call a refund or a lookup). */
export interface SweepRun {
  readonly turns: readonly (readonly ToolCall[])[]
  /** Kill points of the run: before, inside and after each tool step. */
  readonly killPoints: number
}

/** mulberry32: a small seeded generator, so a seed names one run. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The run of `seed`: 1 to 3 tool turns of 1 to 3 calls each. */
export function sweepRun(seed: number): SweepRun {
  const next = random(seed)
  const turns: ToolCall[][] = []
  const turnCount = 1 + Math.floor(next() * 3)
  for (let t = 1; t <= turnCount; t++) {
    const calls: ToolCall[] = []
    const callCount = 1 + Math.floor(next() * 3)
    for (let c = 1; c <= callCount; c++) {
      const id = `s${seed}t${t}c${c}`
      calls.push(next() < 0.7 ? { id, name: 'refund', args: { order: `o-${id}`, cents: 100 * c } } : { id, name: 'lookup', args: { order: `o-${id}` } })
    }
    turns.push(calls)
  }
  return { turns, killPoints: 3 * turns.reduce((n, calls) => n + calls.length, 0) }
}

/** Everything the payments API saw: each refund attempt with its idempotency key. */
export interface Payments {
  attempt(key: string | undefined, order: string): void
}

/**
 * The agent of the sweep: a scripted model playing `run`, a refund tool that pays through `payments`, a pure lookup.
 * The model answers by the turn its request is at (its assistant messages so far), not by how often it was called:
 * a resumed process is asked only for the turns the journal does not answer.
 */
export function sweepAgent(run: SweepRun, payments: Payments) {
  const answers: ScriptedStep[] = [...run.turns.map((toolCalls) => ({ content: '', toolCalls: [...toolCalls] })), 'All done.']
  const byTurn: ScriptedStep = (request) => answers[request.messages.filter((m) => m.role === 'assistant').length] as ScriptedStep
  const steps: ScriptedStep[] = answers.map(() => byTurn)
  const refund = tool({
    name: 'refund',
    description: 'Refund an order',
    input: Type.Object({ order: Type.String(), cents: Type.Integer() }, { additionalProperties: false }),
    execute: ({ order }, { idempotencyKey }) => {
      payments.attempt(idempotencyKey, order)
      return { refunded: order }
    },
  })
  const lookup = tool({
    name: 'lookup',
    description: 'Look an order up',
    input: Type.Object({ order: Type.String() }, { additionalProperties: false }),
    execute: ({ order }) => ({ order, status: 'shipped' }),
  })
  return Agent.create({ provider: scripted(steps) })
    .tools([refund, lookup])
    .build()
}

/**
 * `port`, with this process SIGKILLing itself at kill point `killAt` of the run: three per tool step,
 * 3i before tool step i, 3i+1 inside it (its effect done, its outcome not yet journaled), 3i+2 after it.
 * The model attempts' steps are journaled too, but are no kill points of this sweep.
 */
export function killingPort(port: DurablePort, killAt: number): DurablePort {
  let point = 0
  const crossing = (name: string) => (): void => {
    if (name.startsWith('tool:') && point++ === killAt) process.kill(process.pid, 'SIGKILL')
  }
  return {
    runId: port.runId,
    async step(name, fn) {
      const cross = crossing(name)
      cross()
      const value = await port.step(name, async () => {
        const done = await fn()
        cross()
        return done
      })
      cross()
      return value
    },
    sleep: (name, ms) => port.sleep(name, ms),
  }
}

/** What a swept run must show: its calls all ok and in order, each refund key applied once, and only the step killed inside run twice. */
export function sweepVerdict(seed: number, runId: string, killAt: number, attempts: readonly string[]) {
  const run = sweepRun(seed)
  const calls = run.turns.flat()
  const expected = run.turns.flatMap((turnCalls, t) => turnCalls.filter((c) => c.name === 'refund').map((c) => `${runId}:${t + 1}:${c.id}`))
  const killedInside = killAt % 3 === 1 ? calls[(killAt - 1) / 3] : undefined
  const inFlight = killedInside?.name === 'refund' ? expected.filter((key) => key.endsWith(`:${killedInside.id}`)) : []
  return {
    calls: calls.map((c) => [c.id, 'ok']),
    expected: { applied: expected, twice: inFlight, attempts: expected.length + inFlight.length },
    actual: { applied: [...new Set(attempts)], twice: expected.filter((key) => attempts.filter((a) => a === key).length > 1), attempts: attempts.length },
  }
}
