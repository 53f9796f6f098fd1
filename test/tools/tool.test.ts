import { Type } from 'typebox'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { Agent, guard, idShapeGuard, tool } from '../../src/index.ts'
import { compileSchema, formatFeedback, validateToolArgs, type ToolArgsResult } from '../../src/validation/building-blocks.ts'
import { scripted } from '../../src/providers/index.ts'

function failureOf<T>(verdict: ToolArgsResult<T> | Promise<ToolArgsResult<T>>) {
  if (verdict instanceof Promise || verdict.ok) throw new Error('expected a synchronous rejection')
  return verdict.failure
}

/** The feedback the model gets for these arguments, one line per issue. */
function feedbackLines(schema: Parameters<typeof compileSchema>[0], args: unknown): string[] {
  const failure = failureOf(validateToolArgs(args, compileSchema(schema)))
  return formatFeedback({ target: 'tool', stage: failure.stage, issues: failure.issues, toolName: 't' }).split('\n').slice(1, -2)
}

describe('tool', () => {
  it('compiles the input schema once and exposes its JSON Schema to the provider', () => {
    const input = Type.Object({ city: Type.String() })
    const t = tool({ name: 'get_weather', description: 'Weather', input, execute: ({ city }) => city })
    expect(t.spec).toEqual({ name: 'get_weather', description: 'Weather', inputSchema: input })
    expectTypeOf(t.execute).parameter(0).toEqualTypeOf<{ city: string }>()
  })

  it('defines a tool without a description, as DESIGN writes one, and sends the model none', async () => {
    const input = Type.Object({ orderId: Type.String() })
    const refund = tool({ name: 'refund', input, execute: ({ orderId }) => `refunded ${orderId}` })
    expect(refund.description).toBe('')
    expect(refund.spec).toEqual({ name: 'refund', inputSchema: input })
    const provider = scripted([{ toolCalls: [{ id: 'c1', name: 'refund', args: { orderId: 'o-1' } }] }, 'done'])
    const agent = Agent.create({ provider }).tool(refund).build()
    expect(await agent.run('refund o-1')).toBe('done')
    expect(provider.requests[0]?.tools).toEqual([{ name: 'refund', inputSchema: input }])
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'refunded o-1' })
  })

  it('sends {type: object} when no JSON Schema can be derived', () => {
    const t = tool({ name: 'p', description: '', input: { parse: (v: unknown) => v as { a: number } }, execute: () => 1 })
    expect(t.spec.inputSchema).toEqual({ type: 'object' })
  })

  it('infers a Standard Schema input type', () => {
    const t = tool({ name: 'z', description: '', input: z.object({ n: z.number() }), execute: ({ n }) => n * 2 })
    expectTypeOf(t.execute).parameter(0).toEqualTypeOf<{ n: number }>()
  })

  it('rejects a bad name, a missing execute and a negative retry budget at definition', () => {
    const input = Type.Object({})
    expect(() => tool({ name: 'has space', description: '', input, execute: () => 1 })).toThrow(/name must be/)
    expect(() => tool({ name: 'x', description: '', input, execute: undefined as never })).toThrow(/execute must be a function/)
    expect(() => tool({ name: 'x', description: '', input, execute: () => 1, maxRetries: -1 })).toThrow(/maxRetries/)
  })

  it('refuses two tools with the same name on one agent', () => {
    const t = tool({ name: 'x', description: '', input: Type.Object({}), execute: () => 1 })
    expect(() =>
      Agent.create({ provider: scripted([]) })
        .tool(t)
        .tool(t),
    ).toThrow(/already added/)
  })

  it('refuses a builder step taken twice with a TypeError, as every misuse of the builder', () => {
    const builder = () => Agent.create({ provider: scripted([]) })
    const t = tool({ name: 'x', description: '', input: Type.Object({}), execute: () => 1 })
    const thrown = (step: () => unknown): unknown => {
      try {
        step()
      } catch (error) {
        return error
      }
      return undefined
    }
    const errors = [
      thrown(() => builder().tool(t).tool(t)),
      thrown(() => builder().outputSchema(Type.Object({})).outputSchema(Type.Object({}))),
      thrown(() => builder().reliability({}).reliability({})),
      thrown(() => builder().costBudget({ usd: 1 }).costBudget({ usd: 1 })),
    ]
    expect(errors.map((e) => e instanceof TypeError && /already (added|called)/.test(e.message))).toEqual([true, true, true, true])
  })
})

describe('validateToolArgs', () => {
  const schema = compileSchema(Type.Object({ n: Type.Integer() }))

  it('accepts valid arguments, given as an object or as a JSON string', () => {
    expect(validateToolArgs({ n: 1 }, schema)).toEqual({ ok: true, value: { n: 1 } })
    expect(validateToolArgs('{"n": 2}', schema)).toEqual({ ok: true, value: { n: 2 } })
  })

  it('fails with stage tool-args and the raw arguments', () => {
    const failure = failureOf(validateToolArgs({ n: 1.5 }, schema))
    expect(failure.stage).toBe('tool-args')
    expect(failure.rawOutput).toBe('{"n":1.5}')
    expect(failure.path).toBe('n')
  })

  it('fails an unparseable string with a clear root issue', () => {
    const failure = failureOf(validateToolArgs('{"n": ', schema))
    expect(failure.issues[0]).toMatchObject({ path: '', code: 'other' })
    expect(failure.issues[0]?.message).toMatch(/^the arguments are not valid JSON: (?!.*not valid JSON)/)
    expect(failure.rawOutput).toBe('{"n": ')
  })

  it('refuses a __proto__ key in string arguments', () => {
    const failure = failureOf(validateToolArgs('{"__proto__": {"n": 1}}', schema))
    expect(failure.issues[0]).toMatchObject({ code: 'forbidden_key' })
  })
})

describe('tool-argument feedback lines', () => {
  it.each([
    ['missing', Type.Object({ to: Type.String() }), {}, "- 'to': required field is missing — provide a value"],
    ['string', Type.Object({ subject: Type.String() }), { subject: 42 }, "- 'subject': expected string, got number"],
    ['integer', Type.Object({ count: Type.Integer() }), { count: 'three' }, '- \'count\': expected integer, got "three"'],
    [
      'datetime',
      Type.Object({ due: Type.String({ format: 'date-time' }) }),
      { due: 'tomorrow' },
      "- 'due': expected ISO datetime (e.g. '2026-05-03T00:00:00'), got \"tomorrow\"",
    ],
    ['list', Type.Object({ cc: Type.Array(Type.String()) }), { cc: 'a@b.c' }, "- 'cc': expected list/array, got string"],
    ['unknown field', Type.Object({}, { additionalProperties: false }), { bcc: 'x' }, "- 'bcc': unknown field — remove it"],
    [
      'fallback (the validator message)',
      Type.Object({ body: Type.String({ maxLength: 3 }) }),
      { body: 'too long' },
      "- 'body': must not have more than 3 characters",
    ],
  ])('renders %s', (_label, schema, args, line) => {
    expect(feedbackLines(schema, args)).toEqual([line])
  })

  it('frames the lines for a tool call', () => {
    const failure = failureOf(validateToolArgs({}, compileSchema(Type.Object({ to: Type.String() }))))
    expect(formatFeedback({ target: 'tool', stage: 'tool-args', issues: failure.issues, toolName: 'send_email' })).toBe(
      [
        'Your previous tool call had invalid arguments. Fix these issues:',
        "- 'to': required field is missing — provide a value",
        '',
        'Retry the tool call with corrected arguments.',
      ].join('\n'),
    )
  })
})

describe('tool options', () => {
  const input = { type: 'object' } as const
  it('refuses a misspelt key with "did you mean", naming tool', () => {
    expect(() => tool({ name: 'x', description: '', input, execute: () => 1, maxretries: 1 } as never)).toThrow(
      /^tool: unknown option "maxretries" \(did you mean "maxRetries"\?\)/,
    )
    expect(() => tool({ name: 'x', description: '', input, execute: () => 1, guard: [] } as never)).toThrow(TypeError)
    // The README's own example of a misspelt key.
    expect(() => tool({ name: 'x', description: '', input, execute: () => 1, maxRetry: 2 } as never)).toThrow(
      /^tool: unknown option "maxRetry" \(did you mean "maxRetries"\?\)/,
    )
  })

  it('refuses maxRetries that is no whole count', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1.5, '2']) {
      expect(() => tool({ name: 'x', description: '', input, execute: () => 1, maxRetries: bad as never })).toThrow(
        /tool: maxRetries must be an integer, 0 or above/,
      )
    }
  })

  it('refuses a guard option it does not know, and a checksRawInput that is no boolean', () => {
    expect(() => guard('g', () => ({ ok: true }), { checksRawinput: true } as never)).toThrow(
      /^guard: unknown option "checksRawinput" \(did you mean "checksRawInput"\?\)/,
    )
    expect(() => guard('g', () => ({ ok: true }), { checksRawInput: 'yes' } as never)).toThrow('guard: checksRawInput must be a boolean, got "yes"')
  })

  it('refuses an idShapeGuard option it does not know', () => {
    expect(() => idShapeGuard({ field: ['order_id'] } as never)).toThrow(/^idShapeGuard: unknown option "field" \(did you mean "fields"\?\)/)
  })
})
