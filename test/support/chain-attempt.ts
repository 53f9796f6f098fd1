import type { AttemptContext, AttemptResult, Middleware, ModelRequest } from '../../src/index.ts'
import type { ModelResponse } from '../../src/index.ts'
import { type Chain, compileChain } from '../../src/policies/chain.ts'
import { ChainAttempt, type ResponseCall } from '../../src/policies/chain-attempt.ts'
import type { Stage } from '../../src/policies/stage.ts'

/** An attempt made from a plain context, outside a gate: its request's signal is the run's. */
export class TestAttempt extends ChainAttempt {
  readonly runId: string
  readonly baseRequest: ModelRequest
  readonly provider: string
  readonly model: string | undefined
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  readonly turn: number | undefined
  readonly runSignal: AbortSignal | undefined

  constructor(ctx: AttemptContext, ownSignal = false) {
    super(ctx.attempt, ctx.request, ctx.providerIdx, ownSignal)
    this.runSignal = ctx.request.signal
    this.runId = ctx.runId
    this.baseRequest = ctx.baseRequest
    this.provider = ctx.provider
    this.model = ctx.model
    this.metadata = ctx.metadata
    this.turn = ctx.turn
  }
}

/** Both halves of a chain for `attempt`, as the run loop takes them: into the chain, then out through its stages (or their fails). */
export function throughAttempt<A extends ChainAttempt>(attempt: A, chain: Chain<A>, call: ResponseCall): Promise<ModelResponse> {
  const failed = (error: unknown): Promise<never> => {
    const heard = attempt.failOpen(error)
    return heard === undefined ? Promise.reject(error) : heard.then(() => Promise.reject(error))
  }
  let answer: unknown
  try {
    answer = chain(attempt, call)
  } catch (error) {
    return failed(error)
  }
  return Promise.resolve(answer).then((value) => Promise.resolve(attempt.leave(value)).catch(failed), failed)
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
  const settled = throughAttempt(attempt, compileChain(stages, links), (c) => terminal(c).then((r) => r.response)).then((response) => ({ response }))
  const close = (): void => attempt.close()
  settled.then(close, close)
  return settled
}
