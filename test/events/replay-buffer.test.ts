import { take, toArray, firstValueFrom } from 'rxjs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { lazyObservable } from '../../src/events/lazy-observable.ts'
import { ReplayBuffer, type StreamObserver } from '../../src/events/replay-buffer.ts'

function recorder(): StreamObserver<number> & { log: string[] } {
  const log: string[] = []
  return { log, next: (v) => log.push(`next ${v}`), error: (e) => log.push(`error ${String(e)}`), complete: () => log.push('complete') }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('ReplayBuffer', () => {
  it('replays earlier values to a late subscriber, then the live ones, then the end', () => {
    const buffer = new ReplayBuffer<number>()
    buffer.next(1)
    const late = recorder()
    buffer.subscribe(late)
    buffer.next(2)
    buffer.complete()
    buffer.next(3)
    expect(late.log).toEqual(['next 1', 'next 2', 'complete'])
  })

  it('replays the values and the error to a subscriber after the end', () => {
    const buffer = new ReplayBuffer<number>()
    buffer.next(1)
    buffer.error('boom')
    const after = recorder()
    buffer.subscribe(after)
    expect(after.log).toEqual(['next 1', 'error boom'])
  })

  it('stops delivering after unsubscribe', () => {
    const buffer = new ReplayBuffer<number>()
    const observer = recorder()
    const unsubscribe = buffer.subscribe(observer)
    buffer.next(1)
    unsubscribe()
    buffer.next(2)
    buffer.complete()
    expect(observer.log).toEqual(['next 1'])
  })

  it('keeps delivering to the others when an observer throws, and reports the error', () => {
    const reported: (() => void)[] = []
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => void reported.push(task))
    const buffer = new ReplayBuffer<number>()
    buffer.subscribe({
      ...recorder(),
      next: () => {
        throw new Error('consumer bug')
      },
    })
    const other = recorder()
    buffer.subscribe(other)
    expect(() => buffer.next(1)).not.toThrow()
    expect(other.log).toEqual(['next 1'])
    expect(() => reported[0]?.()).toThrow('consumer bug')
  })

  it('stops replaying to a subscriber that closed itself, like an rxjs take(2)', () => {
    const buffer = new ReplayBuffer<number>()
    for (let i = 1; i <= 5; i++) buffer.next(i)
    const observer = { ...recorder(), closed: false }
    observer.next = (v) => {
      observer.log.push(`next ${v}`)
      if (observer.log.length === 2) observer.closed = true
    }
    buffer.subscribe(observer)
    buffer.next(6)
    expect(observer.log).toEqual(['next 1', 'next 2'])
  })

  it('serves rxjs operators through lazyObservable', async () => {
    const buffer = new ReplayBuffer<number>()
    for (let i = 1; i <= 5; i++) buffer.next(i)
    const observable = lazyObservable<number>((observer) => buffer.subscribe(observer))
    expect(await firstValueFrom(observable.pipe(take(2), toArray()))).toEqual([1, 2])
  })
})
