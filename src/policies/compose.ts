import type { AttemptContext, AttemptResult, Middleware, Terminal } from './middleware.ts'
import { callAsPromise } from '../model/call-as-promise.ts'

/** A composed chain: runs every link around `terminal` for one attempt. */
export type Chain = (ctx: AttemptContext, terminal: Terminal) => Promise<AttemptResult>

/**
 * Composes links once, outermost first (index-based dispatch, as in hono's `compose`). A link that
 * calls `next()` twice gets a rejected promise the second time: an attempt calls its provider once.
 * With no links the chain is the terminal itself, at no cost.
 */
export function compose(links: readonly Middleware[]): Chain {
  if (links.length === 0) return (ctx, terminal) => terminal(ctx)
  const chain = links.slice()
  return function runChain(ctx, terminal) {
    const dispatch = (i: number, current: AttemptContext): Promise<AttemptResult> => {
      if (i === chain.length) return callSafely(terminal, current)
      const link = chain[i] as Middleware
      let called = false
      const next = (request?: AttemptContext['request']): Promise<AttemptResult> => {
        if (called) return Promise.reject(new TypeError(`middleware ${link.name || `#${i}`} called next() more than once in attempt ${current.attempt}`))
        called = true
        return dispatch(i + 1, request === undefined || request === current.request ? current : { ...current, request })
      }
      // A link that throws synchronously fails its attempt like one that rejects.
      return callAsPromise(link, current, next)
    }
    return dispatch(0, ctx)
  }
}

function callSafely(terminal: Terminal, ctx: AttemptContext): Promise<AttemptResult> {
  try {
    return terminal(ctx)
  } catch (error) {
    return Promise.reject(error)
  }
}
