import { ProviderError } from '../../model/provider-error.ts'
import { type RunDeadline, runDeadline } from './run-deadline.ts'

/**
 * The deadline of a durable run of `ms` milliseconds, `remaining` of which are left (its start was
 * journaled: a resumed run keeps its original deadline). One already past has expired: its signal is
 * aborted with the `timeout` a deadline that fired would carry, so the run fails as `run-timeout`
 * before it calls anything.
 */
export function anchoredDeadline(remaining: number, ms: number, outer: AbortSignal | undefined): RunDeadline {
  const expire = (): ProviderError => new ProviderError(`the run did not finish within runTimeoutMs (${ms} ms)`, { kind: 'timeout' })
  if (remaining >= 1) return runDeadline(Math.min(Math.ceil(remaining), ms), outer, expire)
  const controller = new AbortController()
  controller.abort(expire())
  return { signal: controller.signal, expired: true, clear: () => {} }
}
