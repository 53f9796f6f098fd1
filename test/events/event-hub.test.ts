import { describe, expect, it } from 'vitest'
import { EventHub } from '../../src/events/index.ts'

describe('EventHub', () => {
  it('reports no listeners until someone subscribes', () => {
    const hub = new EventHub()
    expect(hub.has('retry')).toBe(false)
    const off = hub.on('retry', () => {})
    expect(hub.has('retry')).toBe(true)
    expect(hub.has('decision')).toBe(false)
    off()
    expect(hub.has('retry')).toBe(false)
    expect(hub.listenerCount).toBe(0)
  })

  it('delivers to the other listeners when one throws', () => {
    const hub = new EventHub()
    const got: number[] = []
    hub.on('recovered', () => {
      throw new Error('x')
    })
    hub.on('recovered', (e) => got.push(e.attempt))
    hub.emit('recovered', { runId: 'r1', attempt: 2, failedAttempts: 1, provider: 'p', recoveredVia: 'retry', priorFailures: 1, errorKind: 'timeout' })
    expect(got).toEqual([2])
  })

  it('does not loop when a listener_error listener throws', () => {
    const hub = new EventHub()
    let calls = 0
    hub.on('listener_error', () => {
      calls++
      throw new Error('again')
    })
    hub.on('recovered', () => {
      throw new Error('x')
    })
    hub.emit('recovered', { runId: 'r1', attempt: 1, failedAttempts: 0, provider: 'p', recoveredVia: 'retry', priorFailures: 0, errorKind: 'timeout' })
    expect(calls).toBe(1)
  })

  it('exposes every event on events$ with its type and removes the listener on unsubscribe', () => {
    const hub = new EventHub()
    const types: string[] = []
    const sub = hub.events$.subscribe((e) => types.push(`${e.type}:${'attempt' in e ? e.attempt : ''}`))
    hub.emit('fallback', { runId: 'r1', attempt: 3, kind: 'k' })
    expect(types).toEqual(['fallback:3'])
    sub.unsubscribe()
    expect(hub.listenerCount).toBe(0)
  })
})

describe('EventHub listeners', () => {
  it('reports a catch-all listener for every event name', () => {
    const hub = new EventHub()
    const off = hub.onAny(() => {})
    expect(hub.has('retry')).toBe(true)
    expect(hub.has('fail_fast')).toBe(true)
    off()
    expect(hub.has('retry')).toBe(false)
  })

  it('removes one registration per unsubscribe when a function is registered twice', () => {
    const hub = new EventHub()
    let calls = 0
    const listener = () => calls++
    const offFirst = hub.on('fallback', listener)
    hub.on('fallback', listener)
    offFirst()
    offFirst()
    hub.emit('fallback', { runId: 'r1', attempt: 1, kind: 'k' })
    expect(calls).toBe(1)
    expect(hub.listenerCount).toBe(1)
  })

  it('delivers an emit in progress to the listeners present when it started', () => {
    const hub = new EventHub()
    const got: string[] = []
    let offSecond = () => {}
    hub.on('recovered', () => {
      got.push('first')
      offSecond()
      hub.on('recovered', () => got.push('late'))
    })
    offSecond = hub.on('recovered', () => got.push('second'))
    hub.emit('recovered', { runId: 'r1', attempt: 1, failedAttempts: 0, provider: 'p', recoveredVia: 'retry', priorFailures: 0, errorKind: 'timeout' })
    expect(got).toEqual(['first', 'second'])
    hub.emit('recovered', { runId: 'r1', attempt: 2, failedAttempts: 1, provider: 'p', recoveredVia: 'retry', priorFailures: 1, errorKind: 'timeout' })
    expect(got).toEqual(['first', 'second', 'first', 'late'])
  })

  it('reports a throwing listener as listener_error with the event name and the error', () => {
    const hub = new EventHub()
    const boom = new Error('boom')
    const reports: unknown[] = []
    hub.on('listener_error', (e) => reports.push(e))
    hub.on('recovered', () => {
      throw boom
    })
    hub.emit('recovered', { runId: 'r1', attempt: 1, failedAttempts: 0, provider: 'p', recoveredVia: 'retry', priorFailures: 0, errorKind: 'timeout' })
    expect(reports).toEqual([{ runId: 'r1', event: 'recovered', error: boom }])
  })
})
