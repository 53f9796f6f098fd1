import { EventEmitter } from 'eventemitter3'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { EventHub } from '../../src/events/index.ts'
import { GATE_EVENT_NAMES } from '../../src/events/event-names.ts'
import type { GateEventName } from '../../src/events/event-map.ts'

const recovered = (attempt: number) => ({
  runId: 'r1',
  attempt,
  failedAttempts: 0,
  provider: 'p',
  recoveredVia: 'retry' as const,
  priorFailures: 0,
  errorKind: 'timeout' as const,
})

afterEach(() => {
  vi.restoreAllMocks()
})

describe('EventHub on eventemitter3', () => {
  it('dispatches every emit through an eventemitter3 emitter', () => {
    const emit = vi.spyOn(EventEmitter.prototype, 'emit')
    const hub = new EventHub()
    const got: number[] = []
    hub.on('recovered', (e) => got.push(e.attempt))
    const payload = recovered(3)
    hub.emit('recovered', payload)
    expect(got).toEqual([3])
    expect(emit).toHaveBeenCalledTimes(1)
    expect(emit).toHaveBeenCalledWith('recovered', payload)
  })

  it('does not reach the emitter when nobody listens to the event', () => {
    const emit = vi.spyOn(EventEmitter.prototype, 'emit')
    const hub = new EventHub()
    hub.on('retry', () => {})
    const payload = recovered(1)
    hub.emit('recovered', payload)
    expect(emit).not.toHaveBeenCalled()
    // Nobody received it, so it was not frozen either.
    expect(Object.isFrozen(payload)).toBe(false)
  })

  it('keeps the emitter private: no own enumerable field and no emitter method on the hub', () => {
    const hub = new EventHub()
    hub.on('retry', () => {})
    expect(Object.keys(hub)).toEqual(['events$'])
    for (const method of ['addListener', 'removeListener', 'removeAllListeners', 'listeners', 'eventNames', 'once', 'off']) expect(method in hub).toBe(false)
  })
})

describe('EventHub catch-all listeners during an emit', () => {
  it('calls a catch-all listener removed during an emit and not one added during it', () => {
    const hub = new EventHub()
    const got: string[] = []
    let offAny = () => {}
    hub.on('recovered', () => {
      got.push('specific')
      offAny()
      hub.onAny((e) => got.push(`late:${e.type}`))
    })
    offAny = hub.onAny((e) => got.push(`any:${e.type}`))
    hub.emit('recovered', recovered(1))
    expect(got).toEqual(['specific', 'any:recovered'])
    got.length = 0
    hub.emit('recovered', recovered(2))
    expect(got).toEqual(['specific', 'late:recovered'])
  })

  it('reports a throwing catch-all listener as listener_error with the event name, once per emit', () => {
    const hub = new EventHub()
    const boom = new Error('boom')
    const reports: unknown[] = []
    hub.on('listener_error', (e) => reports.push(e))
    hub.onAny((e) => {
      if (e.type !== 'listener_error') throw boom
    })
    hub.emit('recovered', recovered(1))
    expect(reports).toEqual([{ runId: 'r1', event: 'recovered', error: boom }])
  })

  it('reports a catch-all listener whose promise rejects as listener_error', async () => {
    const hub = new EventHub()
    const boom = new Error('later')
    const reported = new Promise((resolve) => hub.on('listener_error', resolve))
    hub.onAny(async (e) => {
      if (e.type !== 'listener_error') throw boom
    })
    hub.emit('fallback', { runId: 'r9', attempt: 1, kind: 'k' })
    expect(await reported).toEqual({ runId: 'r9', event: 'fallback', error: boom })
  })

  it('gives a catch-all listener a frozen event with the name as its type', () => {
    const hub = new EventHub()
    const events: unknown[] = []
    hub.onAny((e) => events.push(e))
    hub.emit('fallback', { runId: 'r1', attempt: 2, kind: 'k' })
    expect(events).toEqual([{ type: 'fallback', runId: 'r1', attempt: 2, kind: 'k' }])
    expect(Object.isFrozen(events[0])).toBe(true)
  })
})

// One subscription of the model: which names it hears (every name for a catch-all) and its tag.
interface Subscription {
  readonly names: readonly GateEventName[] | 'all'
  readonly tag: number
  readonly off: () => void
}

const NAMES = ['retry', 'recovered', 'fallback', 'decision'] as const satisfies readonly GateEventName[]
const step = fc.oneof(
  fc.record({ op: fc.constant('on' as const), name: fc.constantFrom(...NAMES), fn: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ op: fc.constant('onAny' as const), fn: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ op: fc.constant('off' as const), which: fc.nat(), twice: fc.boolean() }),
  fc.record({ op: fc.constant('emit' as const), name: fc.constantFrom(...NAMES) }),
)

describe('EventHub subscriptions', () => {
  it('agrees with a list of subscriptions on has, listenerCount and who is called, in subscription order', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const hub = new EventHub()
        let live: Subscription[] = []
        let calls: number[] = []
        // A few shared functions, so one function registered twice is two registrations.
        const fns = [0, 1, 2].map((tag) => () => calls.push(tag))
        for (const s of steps) {
          if (s.op === 'on') live.push({ names: [s.name], tag: s.fn, off: hub.on(s.name, fns[s.fn] as () => void) })
          else if (s.op === 'onAny') live.push({ names: 'all', tag: s.fn, off: hub.onAny(fns[s.fn] as () => void) })
          else if (s.op === 'off' && live.length > 0) {
            const gone = live[s.which % live.length] as Subscription
            gone.off()
            if (s.twice) gone.off()
            live = live.filter((l) => l !== gone)
          } else if (s.op === 'emit') {
            calls = []
            hub.emit(s.name, { runId: 'r', attempt: 1, failedAttempts: 0, provider: 'p', kind: 'k' } as never)
            expect(calls).toEqual(live.filter((l) => l.names === 'all' || l.names.includes(s.name)).map((l) => l.tag))
          }
          expect(hub.listenerCount).toBe(live.length)
          for (const name of GATE_EVENT_NAMES) expect(hub.has(name)).toBe(live.some((l) => l.names === 'all' || l.names.includes(name)))
        }
      }),
      { numRuns: 300 },
    )
  })
})
