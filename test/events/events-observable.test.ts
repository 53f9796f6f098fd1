import { filter, firstValueFrom, from, isObservable, map, take, toArray } from 'rxjs'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { GateEvent } from '../../src/index.ts'
import { mockSyncRequire } from '../support/sync-require-mock.ts'

type Events = typeof import('../../src/events/index.ts')

const fallback = (attempt: number) => ({ runId: 'r1', attempt, kind: 'k' })
const recovered = (attempt: number) => ({
  runId: 'r1',
  attempt,
  failedAttempts: attempt - 1,
  provider: 'p',
  recoveredVia: 'retry' as const,
  priorFailures: attempt - 1,
  errorKind: 'timeout' as const,
})

beforeEach(() => {
  vi.resetModules()
})
afterEach(() => {
  vi.doUnmock('../../src/model/sync-require.ts')
  vi.restoreAllMocks()
})

describe('events$', () => {
  it('takes rxjs operators directly', async () => {
    const { EventHub }: Events = await import('../../src/events/index.ts')
    const hub = new EventHub()
    const attempts = firstValueFrom(
      hub.events$.pipe(
        filter((e): e is Extract<GateEvent, { type: 'recovered' }> => e.type === 'recovered'),
        map((e) => e.attempt),
        take(2),
        toArray(),
      ),
    )
    hub.emit('fallback', fallback(1))
    hub.emit('recovered', recovered(2))
    hub.emit('recovered', recovered(3))
    expect(await attempts).toEqual([2, 3])
    expect(hub.listenerCount).toBe(0)
  })

  it('is an rxjs interop observable: from() and isObservable accept it', async () => {
    const { EventHub }: Events = await import('../../src/events/index.ts')
    const hub = new EventHub()
    expect(isObservable(hub.events$)).toBe(true)
    const types: string[] = []
    const sub = from(hub.events$).subscribe((e) => types.push(e.type))
    hub.emit('fallback', fallback(1))
    sub.unsubscribe()
    hub.emit('fallback', fallback(2))
    expect(types).toEqual(['fallback'])
    expect(hub.listenerCount).toBe(0)
  })

  it('returns rxjs Subscriptions', async () => {
    const { EventHub }: Events = await import('../../src/events/index.ts')
    const hub = new EventHub()
    const sub = hub.events$.subscribe(() => {})
    let tornDown = false
    sub.add(() => (tornDown = true))
    sub.unsubscribe()
    expect(tornDown).toBe(true)
    expect(sub.closed).toBe(true)
  })
})

describe('events$ where rxjs cannot be required', () => {
  it('delivers events to subscribe and stops on unsubscribe', async () => {
    mockSyncRequire('none')
    const { EventHub }: Events = await import('../../src/events/index.ts')
    const hub = new EventHub()
    const seen: number[] = []
    const sub = hub.events$.subscribe({ next: (e) => seen.push('attempt' in e ? e.attempt : -1) })
    hub.emit('fallback', fallback(1))
    sub.unsubscribe()
    hub.emit('fallback', fallback(2))
    expect(seen).toEqual([1])
    expect(sub.closed).toBe(true)
    expect(hub.listenerCount).toBe(0)
  })

  it('still works through rxjs from()', async () => {
    mockSyncRequire('none')
    const { EventHub }: Events = await import('../../src/events/index.ts')
    const hub = new EventHub()
    const first = firstValueFrom(from(hub.events$).pipe(map((e) => e.type)))
    hub.emit('recovered', recovered(2))
    expect(await first).toBe('recovered')
    expect(hub.listenerCount).toBe(0)
  })

  it('says to use from() when pipe is called', async () => {
    mockSyncRequire('none')
    const { EventHub }: Events = await import('../../src/events/index.ts')
    expect(() => new EventHub().events$.pipe(take(1))).toThrow(/from\(observable\)\.pipe/)
  })

  it('reports a throwing subscriber outside the run and keeps delivering to the others', async () => {
    mockSyncRequire('none')
    const reported: (() => void)[] = []
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => void reported.push(task))
    const { EventHub }: Events = await import('../../src/events/index.ts')
    const hub = new EventHub()
    const errors: unknown[] = []
    hub.on('listener_error', (e) => errors.push(e.error))
    hub.events$.subscribe(() => {
      throw new Error('subscriber bug')
    })
    let delivered = 0
    hub.on('fallback', () => delivered++)
    expect(() => hub.emit('fallback', fallback(1))).not.toThrow()
    expect(delivered).toBe(1)
    expect(errors).toEqual([])
    expect(reported).toHaveLength(1)
    expect(() => reported[0]?.()).toThrow('subscriber bug')
  })
})
