import { afterEach, describe, expect, it, vi } from 'vitest'
import { mockSyncRequire } from '../support/sync-require-mock.ts'

afterEach(() => {
  vi.doUnmock('../../src/model/sync-require.ts')
  vi.resetModules()
})

async function freshOptionalModule() {
  vi.resetModules()
  return (await import('../../src/model/optional-module.ts')).optionalModule
}

describe('optionalModule', () => {
  it('requires the package on the first call only and answers the same module after', async () => {
    const requested = mockSyncRequire('record')
    const optionalModule = await freshOptionalModule()
    const load = optionalModule<typeof import('rxjs')>('rxjs')
    expect(requested).toEqual([])
    const first = load()
    expect(typeof first?.Subject).toBe('function')
    expect(load()).toBe(first)
    expect(requested).toEqual(['rxjs'])
  })

  it('answers undefined for a package that is not installed, and does not try again', async () => {
    const requested = mockSyncRequire('record', ['not-installed'])
    const optionalModule = await freshOptionalModule()
    const load = optionalModule('not-installed')
    expect(load()).toBeUndefined()
    expect(load()).toBeUndefined()
    expect(requested).toEqual(['not-installed'])
  })

  it('answers undefined where the runtime cannot require synchronously', async () => {
    mockSyncRequire('none')
    const optionalModule = await freshOptionalModule()
    expect(optionalModule('rxjs')()).toBeUndefined()
  })
})
