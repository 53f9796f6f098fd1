import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, tool, type RunResult } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { boundText, cutMarker, DEFAULT_MAX_FEEDBACK_CHARS, safeJsonText } from '../../src/validation/index.ts'

const Input = Type.Object({ q: Type.String() })
const callT = { content: '', toolCalls: [{ id: 'c1', name: 't', args: { q: 'x' } }] }
const MARKER = /\n\[…(\d+) characters cut…\]$/

/** Runs one tool turn whose `execute` is `execute`, then a final answer; what the model was sent, and the history. */
async function runTool(execute: () => unknown, maxFeedbackChars?: number) {
  const provider = scripted([callT, 'done'])
  const builder = Agent.create({ provider }).tool(tool({ name: 't', description: 't', input: Input, execute }))
  const agent = (maxFeedbackChars === undefined ? builder : builder.reliability({ maxFeedbackChars })).build()
  const result: RunResult<string> = await agent.runDetailed('go')
  const sent = provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content ?? ''
  const stored = agent.history.find((m) => m.role === 'tool')?.content
  return { result, sent, stored }
}

/** The head before the marker, and the count the marker gives. */
function split(sent: string): { head: string; cut: number } {
  const match = MARKER.exec(sent)
  expect(match, 'the text ends with the cut marker').not.toBeNull()
  return { head: sent.slice(0, match?.index), cut: Number(match?.[1]) }
}

describe('tool errors and results leaving for the model', () => {
  it('bounds a 3 MB error a local tool throws by the feedback budget, with a marker saying how much was cut', async () => {
    const message = `refused: ${'e'.repeat(3_000_000)}`
    const { result, sent, stored } = await runTool(() => {
      throw new Error(message)
    })
    const full = `TOOL_ERROR: tool 't' failed: ${message}`
    expect(sent.length).toBeLessThanOrEqual(DEFAULT_MAX_FEEDBACK_CHARS)
    const { head, cut } = split(sent)
    expect(full.startsWith(head)).toBe(true)
    expect(head.length + cut).toBe(full.length)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'execute-failed', error: sent })
    expect(stored).toBe(sent)
  })

  it('bounds a 3 MB string result the same way, and keeps the whole value in functionsCalled', async () => {
    const value = 'r'.repeat(3_000_000)
    const { result, sent, stored } = await runTool(() => value)
    expect(sent.length).toBeLessThanOrEqual(DEFAULT_MAX_FEEDBACK_CHARS)
    const { head, cut } = split(sent)
    expect(head.length + cut).toBe(value.length)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'ok', error: undefined })
    expect(result.functionsCalled[0]?.result).toBe(value)
    expect(stored).toBe(sent)
  })

  it('bounds a large JSON result, and one JSON.stringify cannot write', async () => {
    const big = { rows: Array.from({ length: 50_000 }, (_, i) => ({ i, n: BigInt(i) })) }
    const { result, sent } = await runTool(() => big)
    expect(sent.length).toBeLessThanOrEqual(DEFAULT_MAX_FEEDBACK_CHARS)
    expect(sent.startsWith('{"rows":[{"i":0,"n":"0"},{"i":1,"n":"1"}')).toBe(true)
    expect(split(sent).cut).toBeGreaterThan(0)
    expect(result.functionsCalled[0]?.status).toBe('ok')
  })

  it('follows the agent maxFeedbackChars', async () => {
    const { sent } = await runTool(() => 'x'.repeat(50_000), 10_000)
    expect(sent.length).toBeLessThanOrEqual(10_000)
    expect(sent.length).toBeGreaterThan(9_900)
    expect(split(sent).cut).toBe(50_000 - split(sent).head.length)
  })

  it('sends a result within the budget unchanged', async () => {
    const { sent } = await runTool(() => 'y'.repeat(DEFAULT_MAX_FEEDBACK_CHARS))
    expect(sent).toBe('y'.repeat(DEFAULT_MAX_FEEDBACK_CHARS))
  })
})

describe('boundText', () => {
  it('holds the bound, keeps a prefix, and counts what it cut', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000, unit: 'binary' }), fc.integer({ min: 0, max: 3000 }), (text, max) => {
        const out = boundText(text, max)
        expect(out.length).toBeLessThanOrEqual(max)
        if (text.length <= max) {
          expect(out).toBe(text)
          return
        }
        const match = MARKER.exec(out)
        if (match === null) {
          // Too small for a head: a prefix of the marker alone.
          expect(cutMarker(text.length).startsWith(out)).toBe(true)
          return
        }
        const head = out.slice(0, match.index)
        expect(text.startsWith(head)).toBe(true)
        expect(head.length + Number(match[1])).toBe(text.length)
      }),
    )
  })

  it('never ends its head on half a surrogate pair', () => {
    const out = boundText('😀'.repeat(1000), 100)
    expect(out.length).toBeLessThanOrEqual(100)
    expect(out).not.toMatch(/[\uD800-\uDBFF]\n/)
  })
})

describe('safeJsonText', () => {
  it('writes anything as parseable JSON (or nothing), never throwing', () => {
    const hostile = fc.oneof(
      fc.anything(),
      fc.bigInt(),
      fc.func(fc.anything()),
      fc.anything({ withBigInt: true, withMap: true, withSet: true, withBoxedValues: true }),
    )
    fc.assert(
      fc.property(hostile, (value) => {
        const text = safeJsonText(value)
        if (text !== undefined) expect(() => JSON.parse(text)).not.toThrow()
      }),
    )
  })

  it('writes what JSON.stringify writes whenever it can', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(safeJsonText(value)).toBe(JSON.stringify(value))
      }),
    )
  })

  it('names cycles through several levels, and writes a shared object twice', () => {
    const shared = { s: 1 }
    const a: Record<string, unknown> = { shared, again: shared, n: 2n }
    a['inner'] = { back: a, list: [a] }
    expect(safeJsonText(a)).toBe('{"shared":{"s":1},"again":{"s":1},"n":"2","inner":{"back":"[Circular]","list":["[Circular]"]}}')
  })

  it('reads a revoked Proxy as unreadable', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(safeJsonText({ p: proxy, b: 1n })).toMatch(/^\{"p":"\[Unreadable: TypeError: .*\]","b":"1"\}$/)
  })
})
