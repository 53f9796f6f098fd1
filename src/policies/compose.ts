import { abortReason } from '../model/abort-reason.ts'
import { callAsPromise } from '../model/call-as-promise.ts'
import { slotOf } from './attempt-slot.ts'
import type { AttemptContext, AttemptResult, Middleware, Terminal } from './middleware.ts'

/** A composed chain: runs every link around `terminal` for one attempt. */
export type Chain = (ctx: AttemptContext, terminal: Terminal) => Promise<AttemptResult>

/**
 * Composes links once, outermost first (index-based dispatch, as in hono's `compose`). A link that
 * calls `next()` twice gets a rejected promise the second time: an attempt calls its provider once.
 * `next(request)` with something that is not a request (an object with a `messages` array) fails the
 * attempt with a `TypeError` naming the link, and so does a `next()` called once the attempt has
 * settled; once its signal aborted, `next()` rejects with the abort: no provider call starts after
 * its run let go.
 */
export function compose(links: readonly Middleware[]): Chain {
  if (links.length === 0) return (ctx, terminal) => callSafely(terminal, ctx)
  const chain = links.slice()
  return function runChain(ctx, terminal) {
    const dispatch = (i: number, current: AttemptContext): Promise<AttemptResult> => {
      if (i === chain.length) return callSafely(terminal, current)
      const link = chain[i] as Middleware
      let called = false
      const next = (request?: AttemptContext['request']): Promise<AttemptResult> => {
        const who = `middleware ${linkName(link, i)}`
        if (called) return Promise.reject(new TypeError(`${who} called next() more than once in attempt ${current.attempt}`))
        called = true
        if (request !== undefined && !isRequest(request))
          return Promise.reject(new TypeError(`${who} called next() with something that is not a request (an object with a messages array)`))
        if (slotOf(current)?.closed === true) return Promise.reject(new TypeError(`${who} called next() after attempt ${current.attempt} had settled`))
        // Aborted meanwhile (the run's signal, the deadline): the rest of the chain never starts.
        const signal = current.request.signal
        if (signal?.aborted === true) return Promise.reject(abortReason(signal))
        return dispatch(i + 1, request === undefined || request === current.request ? current : { ...current, request })
      }
      // A link that throws synchronously fails its attempt like one that rejects.
      return callAsPromise(link, current, next)
    }
    return dispatch(0, ctx)
  }
}

function callSafely(terminal: Terminal, ctx: AttemptContext): Promise<AttemptResult> {
  if (slotOf(ctx)?.closed === true) return Promise.reject(new TypeError(`the provider was called after attempt ${ctx.attempt} had settled`))
  try {
    return terminal(ctx)
  } catch (error) {
    return Promise.reject(error)
  }
}

function isRequest(value: unknown): boolean {
  try {
    return typeof value === 'object' && value !== null && Array.isArray((value as { messages?: unknown }).messages)
  } catch {
    return false
  }
}

function linkName(link: Middleware, i: number): string {
  try {
    return typeof link.name === 'string' && link.name !== '' ? printable(link.name.slice(0, 100)) : `#${i}`
  } catch {
    return `#${i}`
  }
}

/** A name as shown in an error: no control or line-breaking character that could forge a log line. */
function printable(name: string): string {
  let out = ''
  for (const ch of name) {
    const code = ch.codePointAt(0) as number
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 ? '?' : ch
  }
  return out
}
