import { expect } from 'vitest'
import { isProviderError, type ProviderError } from '../../../src/index.ts'

/** Awaits a call that must fail with a classified ProviderError, and returns that error. */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isProviderError(error)).toBe(true)
  return error as ProviderError
}
