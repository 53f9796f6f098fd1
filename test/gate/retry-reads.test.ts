import { describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type Message, type ModelRequest, type Provider } from '../../src/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'

const invalidRefundJson = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'

interface Reads {
  /** Reads of an element (`messages[i]`), by index. */
  readonly elements: Map<string, number>
  /** Every other read (`length`, `Symbol.iterator`, `concat`...), counted together. */
  others: number
}

/** A history of `size` messages behind a Proxy that counts every read of the array. */
function countedHistory(size: number): { readonly messages: readonly Message[]; readonly reads: Reads } {
  const history = Array.from({ length: size }, (_, i): Message => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` }))
  const reads: Reads = { elements: new Map(), others: 0 }
  const messages = new Proxy(history, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads.elements.set(key, (reads.elements.get(key) ?? 0) + 1)
      else reads.others++
      return Reflect.get(target, key, receiver)
    },
  })
  return { messages, reads }
}

/**
 * One run with one schema retry over a counted history; the provider answers without reading the
 * messages, so every read counted is the gate's own. Returns the reads made before the first call
 * (the request's check) and those made after it (the retry's assembly).
 */
async function readsAcrossRetry(size: number): Promise<{ readonly entry: Reads; readonly retry: Reads; readonly calls: number }> {
  const { messages, reads } = countedHistory(size)
  let entry: Reads | undefined
  let calls = 0
  const provider: Provider = {
    name: 'p',
    complete: async () => {
      calls++
      if (calls === 1) {
        entry = { elements: new Map(reads.elements), others: reads.others }
        reads.elements.clear()
        reads.others = 0
      }
      return { content: calls === 1 ? invalidRefundJson : validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
    },
  }
  const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
  const request: ModelRequest = { messages }
  await gate.run(request)
  return { entry: entry as Reads, retry: reads, calls }
}

describe('retry assembly over a long history', () => {
  it('reads each message of the request once per run, at its check, however many attempts follow', async () => {
    for (const size of [100, 1_000, 10_000]) {
      const { entry, retry, calls } = await readsAcrossRetry(size)
      expect(calls).toBe(2)
      expect(entry.elements.size).toBe(size)
      expect([...entry.elements.values()].every((n) => n === 1)).toBe(true)
      expect(retry.elements.size).toBe(0)
    }
  })

  it('makes the same fixed number of reads of the history for a retry whether it holds 100 or 10,000 messages', async () => {
    const counts = []
    for (const size of [100, 1_000, 10_000]) {
      const { entry, retry } = await readsAcrossRetry(size)
      counts.push({ entryOthers: entry.others, retryOthers: retry.others, retryElements: retry.elements.size })
    }
    expect(counts[1]).toEqual(counts[0])
    expect(counts[2]).toEqual(counts[0])
    expect(counts[0]?.retryOthers).toBeLessThanOrEqual(4)
  })
})
