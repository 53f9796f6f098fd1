import { afterEach, beforeEach, expect } from 'vitest'

/**
 * Fails every test of the file that leaves an unhandled rejection behind: registers the listener
 * before each test and, after it, lets stray rejections surface and expects none.
 */
export function expectNoUnhandledRejections(): void {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason)
  }
  beforeEach(() => {
    unhandled.length = 0
    process.on('unhandledRejection', onUnhandled)
  })
  afterEach(async () => {
    await new Promise((resolve) => setTimeout(resolve, 10))
    process.off('unhandledRejection', onUnhandled)
    expect(unhandled).toEqual([])
  })
}
