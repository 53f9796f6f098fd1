import { describe, expect, it } from 'vitest'
import { createGate, type ModelRequest, type Provider } from '../../src/index.ts'

/** A provider that answers `ok` and counts its calls. */
function counting(): Provider & { calls: number } {
  const p = {
    name: 'p',
    calls: 0,
    complete: async () => {
      p.calls++
      return { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' as const }
    },
  }
  return p
}

const lookup = { name: 'lookup', inputSchema: { type: 'object' } }
/** A request with `toolChoice`, offering `tools` (`null`: no `tools` key). */
const ask = (toolChoice: unknown, tools: readonly unknown[] | null = [lookup]): ModelRequest =>
  ({ messages: [{ role: 'user', content: 'hi' }], ...(tools !== null ? { tools } : {}), toolChoice }) as unknown as ModelRequest

const cyclic: Record<string, unknown> = {}
cyclic.tool = cyclic

/** A toolChoice of the wrong type or naming no offered tool, and what the TypeError says. */
const BAD: readonly [name: string, request: ModelRequest, message: RegExp][] = [
  ['a number', ask(1), /request\.toolChoice must be 'auto', 'none', 'required' or \{ tool: name \}, got 1$/],
  ['null', ask(null), /request\.toolChoice must be .* got null$/],
  ['an unknown mode', ask('any'), /request\.toolChoice must be .* got "any"$/],
  ['a mode in capitals', ask('Required'), /request\.toolChoice must be .* got "Required"$/],
  ['an array', ask(['lookup']), /request\.toolChoice must be .* got an array$/],
  ['a bare tool name', ask('lookup'), /request\.toolChoice must be .* got "lookup"$/],
  ['a 100k-character mode', ask('r'.repeat(100_000)), /request\.toolChoice must be .* got "r{40}…"$/],
  ['an object without tool', ask({ name: 'lookup' }), /request\.toolChoice\.tool must be a non-empty tool name, got undefined$/],
  ['an empty tool name', ask({ tool: '' }), /request\.toolChoice\.tool must be a non-empty tool name, got ""$/],
  ['a tool name that is a number', ask({ tool: 7 }), /request\.toolChoice\.tool must be .* got 7$/],
  ['a cyclic object', ask(cyclic), /request\.toolChoice\.tool must be .* got object$/],
  ['a named tool that does not exist', ask({ tool: 'refund' }), /request\.toolChoice names tool "refund", which is not one of request\.tools$/],
  ['a named tool with a newline', ask({ tool: 'lookup\nsystem' }), /names tool "lookup\\nsystem", which is not one of request\.tools$/],
  ['a named tool and no tools', ask({ tool: 'lookup' }, null), /names tool "lookup", which is not one of request\.tools$/],
  ['a prototype key as the tool', ask({ tool: '__proto__' }), /names tool "__proto__", which is not one of request\.tools$/],
  ["'required' and no tools", ask('required', []), /request\.toolChoice 'required' needs at least one tool in request\.tools$/],
]

describe('hostile requests: toolChoice', () => {
  it.each(BAD)('gate.run refuses %s with a TypeError naming toolChoice, before any provider call', async (_name, request, message) => {
    const provider = counting()
    const gate = createGate({ providers: [provider] })
    const error = await gate.run(request).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toMatch(/^gate\.run: request\.toolChoice/)
    expect((error as Error).message).toMatch(message)
    expect((error as Error).message).not.toContain('\n')
    expect(provider.calls).toBe(0)
  })

  it('gate.stream refuses a named tool that does not exist the same way', async () => {
    const provider = counting()
    const gate = createGate({ providers: [provider] })
    const consume = async () => {
      for await (const _ of gate.stream(ask({ tool: 'refund' }))) void _
    }
    await expect(consume()).rejects.toThrow(/request\.toolChoice names tool "refund"/)
    expect(provider.calls).toBe(0)
  })

  it('answers a toolChoice whose tool getter throws with that error, as a rejection within 2 s', async () => {
    const provider = counting()
    const gate = createGate({ providers: [provider] })
    const hostile = {
      get tool(): string {
        throw new RangeError('no tool for you')
      },
    }
    const started = Date.now()
    await expect(gate.run(ask(hostile))).rejects.toThrow('no tool for you')
    expect(Date.now() - started).toBeLessThan(2000)
    expect(provider.calls).toBe(0)
  })

  it("accepts 'auto', 'none' and 'required' and every offered tool by name", async () => {
    const provider = counting()
    const gate = createGate({ providers: [provider] })
    for (const choice of ['auto', 'none', 'required', { tool: 'lookup' }, { tool: 'find' }]) {
      await expect(gate.run(ask(choice, [lookup, { name: 'find', inputSchema: {} }]))).resolves.toMatchObject({ value: 'ok' })
    }
    await expect(gate.run(ask('none', []))).resolves.toMatchObject({ value: 'ok' })
    expect(provider.calls).toBe(6)
  })
})
