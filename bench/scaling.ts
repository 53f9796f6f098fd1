import { getEventListeners } from 'node:events'
import { createGate, strictOutputRules, type Message, type ModelRequest, type ModelResponse, type Provider } from '../src/index.ts'
import { EventHub } from '../src/events/index.ts'
import { PAYLOADS, Refund, USER_MESSAGE } from './scenarios.ts'
import { median } from './support/measure.ts'
import { toModelResponse } from './support/script.ts'

const noop = (): void => {}
const invalid = toModelResponse({ kind: 'text', text: PAYLOADS.schemaInvalid })
const valid = toModelResponse({ kind: 'text', text: PAYLOADS.valid })

/** A provider answering invalid-then-valid, forever (one retry per run). */
function retryOnce(): Provider {
  let i = 0
  return { name: 'bench', complete: async () => (i++ % 2 === 0 ? invalid : valid) }
}

function history(size: number): Message[] {
  return Array.from({ length: size }, (_, i): Message => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} of the conversation so far` }))
}

export interface RetryAssemblyRow {
  readonly historySize: number
  /** Median time of a run with one schema retry. */
  readonly medianNs: number
  /** Median time of the same run answered valid at once: the request's check and one attempt, no retry. */
  readonly directNs: number
  /** What the retry adds: `medianNs - directNs` (the retry's assembly, its attempt and its decision). */
  readonly retryNs: number
}

/** A provider answering valid at once, forever (no retry). */
function validAtOnce(): Provider {
  return { name: 'bench', complete: async () => valid }
}

/**
 * Scenario (c) (one schema retry) with a base history of 10 / 1,000 / 10,000 messages, against the
 * same run answered valid at once. The provider does not read the messages. A whole run also pays
 * for `gate.run`'s check of the request (each message's role and content, once per run, before any
 * attempt), which grows with the history by design; the retry is what the run with a retry costs
 * beyond the run without one, and its ratio is the figure that must stay flat. The two runs are
 * timed in pairs, one right after the other, and the sizes take turns, so the drift of a shared
 * machine hits all alike; the median of the pairs' differences is kept (a collection in one run of
 * a pair does not move it).
 */
export async function retryAssembly(pairs = 3_000): Promise<{ rows: RetryAssemblyRow[]; ratio: number }> {
  const cases = [10, 1_000, 10_000].map((size) => {
    const request: ModelRequest = { messages: [...history(size - 1), { role: 'user', content: USER_MESSAGE }] }
    const gate = (provider: Provider) => {
      const g = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
      g.on('validation_failed', noop)
      return g
    }
    const retried = gate(retryOnce())
    const direct = gate(validAtOnce())
    return { size, retried: () => retried.run(request), direct: () => direct.run(request) }
  })
  // Every size is warmed before any is timed: otherwise the first (smallest) one pays for the JIT.
  for (const c of cases) for (let i = 0; i < 2_000; i++) await Promise.all([c.retried(), c.direct()])
  const samples = cases.map(() => ({ retried: [] as number[], direct: [] as number[], retry: [] as number[] }))
  // Sizes take turns pair by pair, so a busy spell of the machine hits every size alike.
  for (let i = 0; i < pairs; i++) {
    for (const [k, c] of cases.entries()) {
      const s = samples[k] as (typeof samples)[number]
      // Which run of the pair goes first alternates, so neither always runs on the other's garbage.
      const retriedFirst = i % 2 === 0
      const firstNs = await timeOne(retriedFirst ? c.retried : c.direct)
      const secondNs = await timeOne(retriedFirst ? c.direct : c.retried)
      const [withRetry, without] = retriedFirst ? [firstNs, secondNs] : [secondNs, firstNs]
      s.retried.push(withRetry)
      s.direct.push(without)
      s.retry.push(withRetry - without)
    }
  }
  const rows = cases.map((c, k): RetryAssemblyRow => {
    const s = samples[k] as (typeof samples)[number]
    return { historySize: c.size, medianNs: median(s.retried) as number, directNs: median(s.direct) as number, retryNs: median(s.retry) as number }
  })
  const first = rows[0] as RetryAssemblyRow
  const last = rows[rows.length - 1] as RetryAssemblyRow
  return { rows, ratio: last.retryNs / first.retryNs }
}

/** Nanoseconds one awaited call takes. */
async function timeOne(call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  await call()
  return Number(process.hrtime.bigint() - start)
}

export interface BytesRow {
  readonly retries: number
  readonly latestBytes: number
  readonly accumulateBytes: number
}

/**
 * UTF-8 bytes of the messages sent on the n-th retry (n = 1..5), in `latest` and `accumulate`
 * feedback modes. Each invalid answer differs, so the stuck-loop rule never stops the run.
 */
export async function bytesPerRetry(): Promise<BytesRow[]> {
  const sent = async (mode: 'latest' | 'accumulate'): Promise<number[]> => {
    const bytes: number[] = []
    let call = 0
    const provider: Provider = {
      name: 'bench',
      complete: async (request): Promise<ModelResponse> => {
        bytes.push(Buffer.byteLength(JSON.stringify(request.messages)))
        call++
        if (call <= 5) return toModelResponse({ kind: 'text', text: `{"action":"maybe","amount":"USD ${50 + call}","note":"x"}` })
        return valid
      },
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(6), feedbackMode: mode })
    await gate.run({ messages: [{ role: 'user', content: USER_MESSAGE }] })
    return bytes
  }
  const latest = await sent('latest')
  const accumulate = await sent('accumulate')
  return [1, 2, 3, 4, 5].map((retries) => ({ retries, latestBytes: latest[retries] ?? 0, accumulateBytes: accumulate[retries] ?? 0 }))
}

export interface SoakResult {
  readonly runs: number
  readonly heapBeforeBytes: number
  readonly heapAfterBytes: number
  readonly hubListenersBefore: number
  readonly hubListenersAfter: number
  readonly signalListenersBefore: number
  readonly signalListenersAfter: number
}

/**
 * 100,000 gate runs of scenario (c) in one process, sharing one gate, one event hub (two listeners
 * and an rxjs subscription) and one long-lived AbortSignal: heap after a full GC, and listener counts,
 * before and after.
 */
export async function soak(runs = 100_000): Promise<SoakResult> {
  const gc = (globalThis as { gc?: () => void }).gc ?? noop
  const events = new EventHub()
  const gate = createGate({ providers: retryOnce(), outputSchema: Refund, postDecide: strictOutputRules(3), events, timeoutMs: 60_000 })
  gate.on('validation_failed', noop)
  gate.on('attempt_end', noop)
  const subscription = gate.events$.subscribe(noop)
  const controller = new AbortController()
  const request: ModelRequest = { messages: [{ role: 'user', content: USER_MESSAGE }] }
  for (let i = 0; i < 1_000; i++) await gate.run(request, { signal: controller.signal })
  gc()
  const heapBeforeBytes = process.memoryUsage().heapUsed
  const hubListenersBefore = events.listenerCount
  const signalListenersBefore = getEventListeners(controller.signal, 'abort').length
  for (let i = 0; i < runs; i++) await gate.run(request, { signal: controller.signal })
  gc()
  const result: SoakResult = {
    runs,
    heapBeforeBytes,
    heapAfterBytes: process.memoryUsage().heapUsed,
    hubListenersBefore,
    hubListenersAfter: events.listenerCount,
    signalListenersBefore,
    signalListenersAfter: getEventListeners(controller.signal, 'abort').length,
  }
  subscription.unsubscribe()
  return result
}
