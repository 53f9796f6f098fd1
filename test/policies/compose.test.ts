import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { AttemptContext, AttemptResult, Middleware, ModelResponse } from '../../src/index.ts'
import { type TestTerminal, throughChain } from '../support/chain-attempt.ts'

const response = (content: string): ModelResponse => ({ content, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' })
const ctx = (content = 'q'): AttemptContext => ({
  runId: 'run-1',
  attempt: 1,
  request: { messages: [{ role: 'user', content }] },
  baseRequest: { messages: [{ role: 'user', content }] },
  provider: 'p',
  providerIdx: 0,
  model: undefined,
  metadata: undefined,
  turn: undefined,
})
/** The user's links compiled into a chain around a terminal. */
const compose = (links: readonly Middleware[]) => (c: AttemptContext, terminal: TestTerminal) => throughChain([], links, c, terminal)
const echo = (c: AttemptContext): Promise<AttemptResult> => Promise.resolve({ response: response(c.request.messages.map((m) => m.content).join('|')) })

describe("compileChain, with the user's middleware", () => {
  it('calls the terminal directly when there are no links', async () => {
    const chain = compose([])
    await expect(chain(ctx('x'), echo)).resolves.toEqual({ response: response('x') })
  })

  it('runs links outermost first, inner links seeing the request an outer one passed on', async () => {
    const seen: string[] = []
    const append =
      (tag: string): Middleware =>
      (c, next) => {
        seen.push(`${tag}:${c.request.messages[0]?.content}`)
        return next({ ...c.request, messages: [{ role: 'user', content: `${c.request.messages[0]?.content}${tag}` }] })
      }
    const result = await compose([append('a'), append('b'), append('c')])(ctx('q'), echo)
    expect(seen).toEqual(['a:q', 'b:qa', 'c:qab'])
    expect(result.response.content).toBe('qabc')
  })

  it('keeps the context object when next() is called without a request or with the same one', async () => {
    const contexts: AttemptContext[] = []
    const keep: Middleware = (c, next) => {
      contexts.push(c)
      return next(c.request)
    }
    const start = ctx()
    await compose([keep, keep])(start, echo)
    expect(contexts).toEqual([start, start])
    expect(contexts[1]).toBe(contexts[0])
  })

  it('rejects a second next() with a TypeError naming the link, and calls the terminal once', async () => {
    let terminalCalls = 0
    const twice: Middleware = async function callsTwice(_c, next) {
      await next()
      return next()
    }
    const error = await compose([twice])(ctx(), (c) => {
      terminalCalls++
      return echo(c)
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toContain('callsTwice called next() more than once')
    expect(terminalCalls).toBe(1)
  })

  it('turns a link or terminal that throws synchronously into a rejection', async () => {
    const boom: Middleware = () => {
      throw new RangeError('sync')
    }
    await expect(compose([boom])(ctx(), echo)).rejects.toThrow('sync')
    await expect(
      compose([(c, next) => next(c.request)])(ctx(), () => {
        throw new RangeError('terminal')
      }),
    ).rejects.toThrow('terminal')
  })

  it('reaches the terminal exactly once per attempt, whatever mix of pass-through, rewriting and short-circuit links', async () => {
    type Kind = 'pass' | 'rewrite' | 'short'
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Kind>('pass', 'rewrite', 'short'), { maxLength: 8 }), async (kinds) => {
        let terminalCalls = 0
        const links = kinds.map(
          (kind, i): Middleware =>
            (c, next) => {
              if (kind === 'short') return Promise.resolve({ response: response(`short-${i}`) })
              if (kind === 'rewrite') return next({ ...c.request, messages: [...c.request.messages, { role: 'user', content: String(i) }] })
              return next()
            },
        )
        const start = ctx()
        const result = await compose(links)(start, (c: AttemptContext) => {
          terminalCalls++
          return echo(c)
        })
        const firstShort = kinds.indexOf('short')
        if (firstShort >= 0) {
          expect(terminalCalls).toBe(0)
          expect(result.response.content).toBe(`short-${firstShort}`)
        } else {
          expect(terminalCalls).toBe(1)
          const rewrites = kinds.flatMap((k, i) => (k === 'rewrite' ? [String(i)] : []))
          expect(result.response.content).toBe(['q', ...rewrites].join('|'))
        }
        // The caller's context and request are never mutated.
        expect(start.request.messages).toHaveLength(1)
      }),
      { numRuns: 300 },
    )
  })
})
