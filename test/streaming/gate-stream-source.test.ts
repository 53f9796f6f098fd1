import { firstValueFrom, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import { ReplayBuffer } from '../../src/events/replay-buffer.ts'
import { createGateStream } from '../../src/gate/stream/gate-stream.ts'
import type { GateResult, GateStreamEvent } from '../../src/index.ts'

type Event = GateStreamEvent<unknown>
const text = (t: string): Event => ({ type: 'text', text: t, attempt: 1 })

function started() {
  const events = new ReplayBuffer<Event>()
  let settle: (r: GateResult<unknown>) => void = () => {}
  const result = new Promise<GateResult<unknown>>((resolve) => (settle = resolve))
  return { events, settle, stream: createGateStream(events, result) }
}

describe('createGateStream over a ReplayBuffer', () => {
  it('iterates every event from the start, also for a consumer that starts late', async () => {
    const { events, stream } = started()
    events.next(text('a'))
    const early: Event[] = []
    const reading = (async () => {
      for await (const e of stream) early.push(e)
    })()
    events.next(text('b'))
    events.complete()
    await reading
    const late: Event[] = []
    for await (const e of stream) late.push(e)
    expect(early).toEqual([text('a'), text('b')])
    expect(late).toEqual(early)
  })

  it('observes the same events with rxjs and errors with the failure', async () => {
    const { events, stream } = started()
    events.next(text('a'))
    const all = firstValueFrom(stream.observable.pipe(toArray()))
    events.error(new Error('fail-fast'))
    await expect(all).rejects.toThrow('fail-fast')
    await expect(stream[Symbol.asyncIterator]().next()).resolves.toEqual({ value: text('a'), done: false })
  })

  it('stops only the consumer that leaves its loop', async () => {
    const { events, stream } = started()
    events.next(text('a'))
    events.next(text('b'))
    for await (const e of stream) {
      expect(e).toEqual(text('a'))
      break
    }
    events.next(text('c'))
    events.complete()
    const all: Event[] = []
    for await (const e of stream) all.push(e)
    expect(all.map((e) => (e.type === 'text' ? e.text : e.type))).toEqual(['a', 'b', 'c'])
  })
})

describe('GateStream surface', () => {
  it('offers one way to get the observable', () => {
    const stream = createGateStream(new ReplayBuffer<Event>(), new Promise<GateResult<unknown>>(() => {}))
    expect(Object.keys(stream).sort()).toEqual(['observable', 'result'])
  })
})
