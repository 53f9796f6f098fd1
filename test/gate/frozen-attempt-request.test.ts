import { describe, expect, it } from 'vitest'
import { frozenWithTail } from '../../src/gate/ephemeral-tail.ts'
import { frozenAttemptRequest } from '../../src/gate/frozen-attempt-request.ts'
import type { RunView } from '../../src/gate/run/run-view.ts'
import type { Message, ModelRequest } from '../../src/index.ts'

const history = (size: number): Message[] =>
  Array.from({ length: size }, (_, i): Message => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` }))
const tailOf = (feedback: string): Message[] => [
  { role: 'assistant', content: 'previous answer', ephemeral: true },
  { role: 'user', content: feedback, ephemeral: true },
]

/** What frozenAttemptRequest reads of a run: its base request and its tail. */
function runOf(base: ModelRequest, tail: readonly Message[] = []): RunView<unknown> & { base: ModelRequest; tail: readonly Message[] } {
  return { base, tail } as unknown as RunView<unknown> & { base: ModelRequest; tail: readonly Message[] }
}

/** `messages` behind a Proxy that counts reads of its elements. */
function counted(messages: Message[]): { readonly messages: Message[]; readonly reads: () => number } {
  let reads = 0
  const proxy = new Proxy(messages, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++
      return Reflect.get(target, key, receiver)
    },
  })
  return { messages: proxy, reads: () => reads }
}

describe('frozenAttemptRequest', () => {
  it.each([10, 1_000])('answers base + tail frozen throughout for a history of %i, leaving the caller’s objects as they are', (size) => {
    const messages = history(size)
    const run = runOf({ messages, model: 'm' })
    for (const tail of [[], tailOf('fix the amount')]) {
      run.tail = tail
      const request = frozenAttemptRequest(run)
      expect(request.model).toBe('m')
      expect(request.messages).toEqual([...messages, ...tail])
      expect(Object.isFrozen(request)).toBe(true)
      expect(Object.isFrozen(request.messages)).toBe(true)
      expect(request.messages.every((m) => Object.isFrozen(m))).toBe(true)
    }
    expect(Object.isFrozen(messages)).toBe(false)
    expect(messages.some((m) => Object.isFrozen(m))).toBe(false)
  })

  it('copies the history once per run: a retry reads none of it, for 100 or 10,000 messages', () => {
    for (const size of [100, 10_000]) {
      const { messages, reads } = counted(history(size))
      const run = runOf({ messages })
      frozenAttemptRequest(run)
      const first = reads()
      for (const feedback of ['first retry', 'second retry']) {
        run.tail = tailOf(feedback)
        expect(frozenAttemptRequest(run).messages.at(-1)?.content).toBe(feedback)
      }
      // Joining the frozen copies to the tail reads the copies, never the caller's history.
      expect(reads()).toBe(first)
    }
  })

  it('copies the history again for another run, which sees an edit the caller made in between', () => {
    const messages = history(3)
    const base: ModelRequest = { messages }
    expect(frozenAttemptRequest(runOf(base)).messages[0]?.content).toBe('message 0')
    messages[0] = { role: 'user', content: 'edited' }
    expect(frozenAttemptRequest(runOf(base)).messages[0]?.content).toBe('edited')
  })

  it('copies again when a failover base holds another messages array, and keeps the copies when it holds the same', () => {
    const { messages, reads } = counted(history(100))
    const run = runOf({ messages, model: 'a' })
    frozenAttemptRequest(run)
    const once = reads()
    run.base = { messages, model: 'b' }
    expect(frozenAttemptRequest(run).model).toBe('b')
    expect(reads()).toBe(once)
    run.base = { messages: history(2), model: 'c' }
    expect(frozenAttemptRequest(run).messages).toHaveLength(2)
  })
})

describe('frozenWithTail', () => {
  it('joins a long history lazily and freezes the joined array once built', () => {
    const messages = Object.freeze(history(1_000).map((m) => Object.freeze(m)))
    const tail = Object.freeze(tailOf('again').map((m) => Object.freeze(m)))
    const request = frozenWithTail({ messages }, tail)
    expect(Object.isFrozen(request)).toBe(true)
    expect(request.messages).toHaveLength(1_002)
    expect(Object.isFrozen(request.messages)).toBe(true)
    expect(request.messages).toBe(request.messages)
    expect(() => {
      ;(request.messages as Message[]).push({ role: 'user', content: 'x' })
    }).toThrow(TypeError)
  })

  it('answers a frozen base itself when there is no tail', () => {
    const base = Object.freeze({ messages: Object.freeze(history(2)) })
    expect(frozenWithTail(base, [])).toBe(base)
  })
})
