import type { DurablePort, SignalOutcome } from './durable-port.ts'
import { durablePort } from './durable-port-of.ts'

/**
 * What {@link restatePort} uses of a Restate context (`Context`, `ObjectContext`, `WorkflowContext` of
 * `@restatedev/restate-sdk`): declared here so this entry loads without the SDK.
 */
export interface RestateContextLike {
  /** The key of a virtual object or workflow; services have none. */
  readonly key?: string
  request(): { readonly id: string }
  run<T>(name: string, action: () => Promise<T>, options: { readonly maxRetryAttempts: number }): PromiseLike<T>
  sleep(duration: number, name?: string): PromiseLike<void>
  /** A workflow's durable promise (`WorkflowContext`): a port over a workflow can pause for a signal. */
  promise?<T>(name: string): { get(): { orTimeout(millis: number): PromiseLike<T> } }
}

/**
 * A {@link DurablePort} over a Restate handler's context: each step is one `ctx.run` with Restate's
 * retries off (`maxRetryAttempts: 1`: the step journals its failure as data, and only the gate's
 * rules retry), each sleep one `ctx.sleep`. The run's id is the workflow's key (a workflow runs once
 * per key), else the invocation id: a virtual object's key names every invocation on that object, and
 * two runs of one id would share their tools' idempotency keys (the second payment taken for the first).
 *
 * @example
 * import * as restate from '@restatedev/restate-sdk'
 * import { restatePort } from 'reliability-gate/restate'
 *
 * const refunds = restate.workflow({
 *   name: 'refunds',
 *   handlers: { run: async (ctx: restate.WorkflowContext, order: string) => agent.run(`refund ${order}`, { durable: restatePort(ctx) }) },
 * })
 */
export function restatePort(ctx: RestateContextLike): DurablePort {
  if (typeof ctx !== 'object' || ctx === null || typeof ctx.run !== 'function' || typeof ctx.sleep !== 'function' || typeof ctx.request !== 'function') {
    throw new TypeError('restatePort: ctx must be the context of a Restate handler (with run, sleep and request)')
  }
  const key = keyOf(ctx)
  const runId = key !== undefined && !isObjectHandler(ctx) ? key : String(ctx.request().id)
  return durablePort({
    runId,
    run: (name, action) => ctx.run(name, action, NO_RETRIES),
    sleep: (name, ms) => ctx.sleep(ms, name),
    ...(typeof ctx.promise === 'function' ? { signal: (name: string, ms: number) => promised(ctx, name, ms) } : {}),
  })
}

/**
 * The workflow's or object's key; `undefined` for a service's handler, whose context (the SDK's one
 * class for every kind) throws a `TerminalError` from `key` ("this handler type doesn't support key()").
 */
function keyOf(ctx: RestateContextLike): string | undefined {
  let key: unknown
  try {
    key = ctx.key
  } catch {
    return undefined
  }
  return typeof key === 'string' && key !== '' ? key : undefined
}

// The SDK's handler kinds of a virtual object's handlers (`HandlerKind.EXCLUSIVE`, `HandlerKind.SHARED`); a workflow's run is 3.
const OBJECT_HANDLER_KINDS: readonly unknown[] = [1, 2]

/**
 * True in a virtual object's handler: the SDK's context (one class for every kind) keeps its kind in
 * `handlerKind`, not in its types. A context without one (not the SDK's) is taken as a workflow's.
 */
function isObjectHandler(ctx: RestateContextLike): boolean {
  try {
    return OBJECT_HANDLER_KINDS.includes((ctx as { readonly handlerKind?: unknown }).handlerKind)
  } catch {
    return false
  }
}

// Restate counts the first attempt: one attempt is no retry.
const NO_RETRIES = Object.freeze({ maxRetryAttempts: 1 })

/** The workflow promise `name`, at most `ms`: Restate's `TimeoutError` (a terminal error of code 408) is no value received. */
async function promised(ctx: RestateContextLike, name: string, ms: number): Promise<SignalOutcome> {
  try {
    const value = await (ctx.promise as NonNullable<RestateContextLike['promise']>)<unknown>(name).get().orTimeout(ms)
    return { received: true, value }
  } catch (error) {
    if (isRestateTimeout(error)) return { received: false }
    throw error
  }
}

function isRestateTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && ((error as { name?: unknown }).name === 'TimeoutError' || (error as { code?: unknown }).code === 408)
}
