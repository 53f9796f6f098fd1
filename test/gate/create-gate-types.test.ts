import { Type, type Static } from 'typebox'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createGate, type GateResult } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const Refund = Type.Object({ amount: Type.Number() })
const request = { messages: [{ role: 'user' as const, content: 'hi' }] }

describe('createGate types', () => {
  it('types value as the text when there is no output schema', async () => {
    const gate = createGate({ providers: scripted(['hello']) })
    expectTypeOf(gate.run).returns.resolves.toEqualTypeOf<GateResult<string>>()
    const { value } = await gate.run(request)
    expectTypeOf(value).toEqualTypeOf<string>()
    expect(value).toBe('hello')
  })

  it("types value as the schema's type with an output schema", () => {
    expectTypeOf(createGate({ providers: scripted([]), outputSchema: Refund }).run).returns.resolves.toEqualTypeOf<GateResult<Static<typeof Refund>>>()
    const parser = { parse: (raw: unknown) => raw as { ok: boolean } }
    expectTypeOf(createGate({ providers: scripted([]), outputSchema: parser }).run).returns.resolves.toEqualTypeOf<GateResult<{ ok: boolean }>>()
  })

  it('takes an explicit type argument', () => {
    expectTypeOf(createGate<{ n: number }>({ providers: scripted([]), outputSchema: { type: 'object' } }).run).returns.resolves.toEqualTypeOf<
      GateResult<{ n: number }>
    >()
  })
})
