import type { AttemptContext, AttemptResult, Middleware, ModelRequest } from '../../src/index.ts'
import { compileChain } from '../../src/policies/chain.ts'
import { ChainAttempt } from '../../src/policies/chain-attempt.ts'
import type { Stage } from '../../src/policies/stage.ts'

/** An attempt made from a plain context, outside a gate: its request's signal is the run's. */
export class TestAttempt extends ChainAttempt {
  readonly runId: string
  readonly baseRequest: ModelRequest
  readonly provider: string
  readonly model: string | undefined
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  readonly turn: number | undefined

  constructor(ctx: AttemptContext, ownSignal = false) {
    super(ctx.attempt, ctx.request, { providerIdx: ctx.providerIdx, signal: ctx.request.signal }, ownSignal)
    this.runId = ctx.runId
    this.baseRequest = ctx.baseRequest
    this.provider = ctx.provider
    this.model = ctx.model
    this.metadata = ctx.metadata
    this.turn = ctx.turn
  }
}

/** A terminal as a test writes it: the provider's answer as `{ response }`. */
export type TestTerminal = (ctx: AttemptContext) => Promise<AttemptResult>

/**
 * Takes one attempt made from `ctx` through a chain compiled from `stages` and `links` around
 * `terminal`, as the gate does (the attempt closes once it settled); answers `{ response }`.
 */
export function throughChain(stages: readonly Stage[], links: readonly Middleware[], ctx: AttemptContext, terminal: TestTerminal): Promise<AttemptResult> {
  const attempt = new TestAttempt(
    ctx,
    stages.some((s) => s.stops === true),
  )
  let answer: ReturnType<ReturnType<typeof compileChain>>
  try {
    answer = compileChain(stages, links)(attempt, (c) => terminal(c).then((r) => r.response))
  } catch (error) {
    answer = Promise.reject(error)
  }
  const settled = Promise.resolve(answer).then((response) => ({ response }))
  const close = (): void => attempt.close()
  settled.then(close, close)
  return settled
}
