import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DurablePort } from '../../../src/durable.ts'
import { isDurableRunError } from '../../../src/durable.ts'
import { isProviderError, ProviderError } from '../../../src/index.ts'

/** What the two-step workflow answers: the first step's value, the journaled failure as it came back, the second step's value. */
export interface TwoStepsResult {
  readonly one: unknown
  readonly failure: Record<string, unknown>
  readonly two: unknown
}

/**
 * The workflow both engines run, over their port: a step with an effect, a step failing with a
 * `ProviderError`, and a step that holds (while `<dir>/hold` exists) after saying it started, so the
 * test can SIGKILL the process inside it. Each step appends its name to `<dir>/effects`.
 */
export async function twoSteps(port: DurablePort, dir: string): Promise<TwoStepsResult> {
  const effect = (what: string): void => appendFileSync(join(dir, 'effects'), `${what}\n`)
  const one = await port.step('one', () => {
    effect('one')
    return { paid: 42, runId: port.runId }
  })
  let failure: Record<string, unknown> = {}
  try {
    await port.step('fail', () => {
      effect('fail')
      throw new ProviderError('slow down', { kind: 'rate-limit', status: 429, retryAfterMs: 1500, provider: 'scripted' })
    })
  } catch (error) {
    const e = error as ProviderError
    failure = {
      branded: isProviderError(error),
      instance: error instanceof ProviderError,
      kind: e.kind,
      status: e.status,
      retryAfterMs: e.retryAfterMs,
      provider: e.provider,
      message: e.message,
    }
  }
  const two = await port.step('two', async () => {
    effect('two')
    if (existsSync(join(dir, 'hold'))) {
      writeFileSync(join(dir, 'in-two'), '')
      await new Promise(() => {})
    }
    return 'done'
  })
  return { one, failure, two }
}

/** A workflow that names a step twice: answers whether the port refused the second, and how. */
export async function reusedStep(port: DurablePort): Promise<{ readonly refused: boolean; readonly kind: unknown; readonly ran: number }> {
  let ran = 0
  await port.step('same', () => ++ran)
  try {
    await port.step('same', () => ++ran)
    return { refused: false, kind: undefined, ran }
  } catch (error) {
    return { refused: isDurableRunError(error), kind: (error as { kind?: unknown }).kind, ran }
  }
}
