import { callAsPromise } from '../model/call-as-promise.ts'
import { abortedWhy, slotOf } from './attempt-slot.ts'
import { printable, refusal } from './entry-check.ts'
import { isLibraryLink, type Link, stageOf, stagesLink } from './link.ts'
import { answersBareResponse, bareResponseTerminal, resultTerminal } from './response-terminal.ts'
import type { Stage } from './stage.ts'
import type { AttemptContext, AttemptResult, Middleware, Terminal } from './middleware.ts'

/** A composed chain: runs every link around `terminal` for one attempt. */
export type Chain = (ctx: AttemptContext, terminal: Terminal) => Promise<AttemptResult>

/**
 * Composes links once, outermost first. A library {@link Link} calls the rest of the chain through a
 * `next(ctx)` made here, once per position; a user's {@link Middleware} gets a guarded `next` per
 * attempt: called twice it rejects the second time (an attempt calls its provider once), with
 * something that is not a request (an object with a `messages` array) it fails the attempt with a
 * `TypeError` naming the link. Whoever calls on: once the attempt has settled that is a `TypeError`,
 * once its signal aborted it rejects with the abort, so no provider call starts after its run let go.
 * Library links made from stages run together, one step for each run of them side by side.
 */
export function compose(given: readonly Middleware[]): Chain
export function compose(given: readonly (Middleware | Link)[]): Chain
export function compose(given: readonly (Middleware | Link)[]): Chain {
  const { links, innermostStages } = grouped(given)
  // The positions' `next`, made for the last terminal seen (a gate's runs share one).
  let lastTerminal: Terminal | undefined
  let entry: Terminal | undefined
  return function runChain(ctx, terminal) {
    if (terminal !== lastTerminal || entry === undefined) {
      let next: Terminal = (c) => callProvider(terminal, c)
      // A terminal answering the bare response goes as is only to a run of stages, which wraps it.
      if (answersBareResponse(terminal)) next = innermostStages ? bareResponseTerminal(next) : resultTerminal(bareResponseTerminal(next))
      for (let i = links.length - 1; i >= 0; i--) next = position(links[i] as Link, next)
      lastTerminal = terminal
      entry = next
    }
    return entry(ctx)
  }
}

/** The links as composed: a user's middleware guarded, each run of stages side by side made one link; whether the innermost is such a run. */
function grouped(given: readonly (Middleware | Link)[]): { readonly links: Link[]; readonly innermostStages: boolean } {
  const links: Link[] = []
  let stages: Stage[] = []
  const flush = (): void => {
    if (stages.length > 0) links.push(stagesLink(stages))
    stages = []
  }
  given.forEach((link, i) => {
    const stage = stageOf(link)
    if (stage !== undefined) stages.push(stage)
    else {
      flush()
      links.push(isLibraryLink(link) ? link : guarded(link, i))
    }
  })
  const innermostStages = stages.length > 0
  flush()
  return { links, innermostStages }
}

/** The `next` that enters `link`: refuses to go on once the attempt settled or its signal aborted. */
function position(link: Link, rest: Terminal): Terminal {
  return (ctx) => {
    const refused = refusal(ctx, link.name)
    if (refused !== undefined) return Promise.reject(refused)
    try {
      return link(ctx, rest)
    } catch (error) {
      return Promise.reject(error)
    }
  }
}

function callProvider(terminal: Terminal, ctx: AttemptContext): Promise<AttemptResult> {
  if (slotOf(ctx)?.closed === true) return Promise.reject(new TypeError(`the provider was called after attempt ${ctx.attempt} had settled`))
  const aborted = abortedWhy(ctx)
  if (aborted !== undefined) return Promise.reject(aborted)
  try {
    return terminal(ctx)
  } catch (error) {
    return Promise.reject(error)
  }
}

/** A user's middleware as a link: its own `next` per attempt, checked as {@link compose} says. */
function guarded(link: Middleware, i: number): Link {
  const wrapped = (current: AttemptContext, rest: Terminal): Promise<AttemptResult> => {
    let called = false
    const next = (request?: AttemptContext['request']): Promise<AttemptResult> => {
      const who = `middleware ${linkName(link, i)}`
      if (called) return Promise.reject(new TypeError(`${who} called next() more than once in attempt ${current.attempt}`))
      called = true
      if (request !== undefined && !isRequest(request))
        return Promise.reject(new TypeError(`${who} called next() with something that is not a request (an object with a messages array)`))
      if (slotOf(current)?.closed === true) return Promise.reject(new TypeError(`${who} called next() after attempt ${current.attempt} had settled`))
      // Aborted meanwhile (the run's signal, the deadline): the rest of the chain never starts.
      const aborted = abortedWhy(current)
      if (aborted !== undefined) return Promise.reject(aborted)
      return rest(request === undefined || request === current.request ? current : { ...current, request })
    }
    // A link that throws synchronously fails its attempt like one that rejects.
    return callAsPromise(link, current, next)
  }
  Object.defineProperty(wrapped, 'name', { value: linkName(link, i) })
  return wrapped as Link
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
