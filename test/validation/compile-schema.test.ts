import { Type } from 'typebox'
import * as v from 'valibot'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { compileSchema, type InferSchema, type SchemaResult, type ValidationIssue } from '../../src/validation/index.ts'

const badRefund = { amount: 'USD 50', action: 'maybe', extra: 1 }

const typebox = Type.Object(
  { title: Type.String(), amount: Type.Number(), action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]) },
  { additionalProperties: false },
)
const jsonSchema = {
  type: 'object',
  properties: { title: { type: 'string' }, amount: { type: 'number' }, action: { enum: ['refund', 'reject'] } },
  required: ['title', 'amount', 'action'],
  additionalProperties: false,
}
const zod = z.strictObject({ title: z.string(), amount: z.number(), action: z.enum(['refund', 'reject']) })
const valibot = v.strictObject({ title: v.string(), amount: v.number(), action: v.picklist(['refund', 'reject']) })
const parser = { parse: (value: unknown) => zod.parse(value) }

function issuesOf(result: SchemaResult<unknown> | Promise<SchemaResult<unknown>>): ValidationIssue[] {
  if (result instanceof Promise) throw new Error('expected a synchronous result')
  if (result.ok) throw new Error('expected a rejection')
  return [...result.issues]
}

function essentials(issues: readonly ValidationIssue[]) {
  return issues
    .map(({ path, segments, code, expected, received }) => ({ path, segments, code, expected, received }))
    .sort((a, b) => `${a.path}|${a.code}`.localeCompare(`${b.path}|${b.code}`))
}

const expectedIssues = [
  { path: 'action', segments: ['action'], code: 'invalid_enum', expected: 'one of "refund", "reject"', received: '"maybe"' },
  { path: 'amount', segments: ['amount'], code: 'invalid_type', expected: 'number', received: '"USD 50"' },
  { path: 'extra', segments: ['extra'], code: 'unknown_property', expected: undefined, received: undefined },
  { path: 'title', segments: ['title'], code: 'missing_required', expected: undefined, received: undefined },
]

describe('compileSchema', () => {
  it.each([
    ['TypeBox', typebox, 'typebox'],
    ['raw JSON Schema', jsonSchema, 'json-schema'],
    ['Zod 4', zod, 'standard-schema'],
    ['Valibot', valibot, 'standard-schema'],
    ['a {parse} object', parser, 'parse'],
  ] as const)('normalises %s to the same issues for the same bad value', (_name, schema, vendor) => {
    const compiled = compileSchema(schema)
    expect(compiled.vendor).toBe(vendor)
    expect(essentials(issuesOf(compiled.validate(badRefund)))).toEqual(expectedIssues)
  })

  it.each([
    ['TypeBox', typebox],
    ['raw JSON Schema', jsonSchema],
    ['Zod 4', zod],
    ['Valibot', valibot],
    ['a {parse} object', parser],
  ] as const)('accepts a valid value with %s', (_name, schema) => {
    const good = { title: 'Refund', amount: 50, action: 'refund' }
    expect(compileSchema(schema).validate(good)).toEqual({ ok: true, value: good })
  })

  it('returns the same compiled object for the same schema object', () => {
    expect(compileSchema(typebox)).toBe(compileSchema(typebox))
    expect(compileSchema(jsonSchema)).toBe(compileSchema(jsonSchema))
    expect(compileSchema(zod)).toBe(compileSchema(zod))
  })

  it('keeps the verdicts and issues it was compiled with when the caller edits its JSON Schema or a registry document afterwards', async () => {
    const money: Record<string, unknown> = { $id: 'https://example.com/edited/money.json', type: 'number' }
    const order = {
      type: 'object',
      properties: { id: { type: 'string' }, amount: { $ref: 'https://example.com/edited/money.json' } },
      required: ['id'] as string[],
    }
    const compiled = compileSchema(order, { registry: [money] })
    ;(order.properties.id as Record<string, unknown>).type = 'number'
    order.required.push('note')
    money['type'] = 'string'
    expect(await compiled.validate({ id: 'a', amount: 5 })).toMatchObject({ ok: true })
    const refused = (await compiled.validate({ id: 7, amount: 'USD 5' })) as Extract<SchemaResult<unknown>, { ok: false }>
    expect(refused.ok).toBe(false)
    expect(refused.issues.map((i) => [i.path, i.code, i.message])).toEqual([
      ['id', 'invalid_type', 'must be string'],
      ['amount', 'invalid_type', 'must be number'],
    ])
  })

  it('exposes the JSON Schema of TypeBox, raw JSON Schema and Zod schemas', () => {
    expect(compileSchema(typebox).jsonSchema).toBe(typebox)
    expect(compileSchema(jsonSchema).jsonSchema).toBe(jsonSchema)
    expect(compileSchema(zod).jsonSchema).toMatchObject({ type: 'object', required: ['title', 'amount', 'action'] })
    expect(compileSchema(parser).jsonSchema).toBeUndefined()
  })

  it('renders nested paths with brackets for indices and dots for keys', () => {
    const schema = Type.Object({ items: Type.Array(Type.Object({ title: Type.String(), 'weird key': Type.Number() })) })
    const issues = issuesOf(compileSchema(schema).validate({ items: [{ title: 'a', 'weird key': 1 }, { 'weird key': 'x' }] }))
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['items[1].title', 'missing_required'],
      ['items[1]["weird key"]', 'invalid_type'],
    ])
    expect(issues[0]?.segments).toEqual(['items', 1, 'title'])
  })

  it('renders the same nested path from a Zod schema', () => {
    const schema = z.object({ items: z.array(z.object({ title: z.string() })) })
    const issues = issuesOf(compileSchema(schema).validate({ items: [{ title: 'a' }, {}] }))
    expect(issues.map((i) => [i.path, i.code])).toEqual([['items[1].title', 'missing_required']])
  })

  it('keeps a numeric object key as a string segment', () => {
    const schema = { type: 'object', properties: { '0': { type: 'string' } } }
    const issues = issuesOf(compileSchema(schema).validate({ '0': 1 }))
    expect(issues[0]?.segments).toEqual(['0'])
    expect(issues[0]?.path).toBe('["0"]')
  })

  it('names integer, array, boolean, date-time and date expectations canonically', () => {
    const schema = Type.Object({
      n: Type.Integer(),
      tags: Type.Array(Type.String()),
      flag: Type.Boolean(),
      due: Type.String({ format: 'date-time' }),
      day: Type.String({ format: 'date' }),
    })
    const issues = issuesOf(compileSchema(schema).validate({ n: 1.5, tags: 'x', flag: 'yes', due: 'tomorrow', day: null }))
    expect(issues.map((i) => [i.path, i.code, i.expected, i.received])).toEqual([
      ['n', 'invalid_type', 'integer', 'number'],
      ['tags', 'invalid_type', 'array', 'string'],
      ['flag', 'invalid_type', 'boolean', '"yes"'],
      ['due', 'invalid_format', 'date-time', '"tomorrow"'],
      ['day', 'invalid_type', 'string', 'null'],
    ])
  })

  it('cuts a long received string to 40 characters', () => {
    const issues = issuesOf(compileSchema(Type.Object({ n: Type.Number() })).validate({ n: 'x'.repeat(100) }))
    expect(issues[0]?.received).toBe(`"${'x'.repeat(40)}…"`)
  })

  it('maps Zod and Valibot integer and date-time issues like TypeBox', () => {
    const zodSchema = z.object({ n: z.number().int(), due: z.iso.datetime() })
    const valibotSchema = v.object({ n: v.pipe(v.number(), v.integer()), due: v.pipe(v.string(), v.isoDateTime()) })
    const value = { n: 1.5, due: 'tomorrow' }
    const expected = [
      ['due', 'invalid_format', 'date-time', '"tomorrow"'],
      ['n', 'invalid_type', 'integer', 'number'],
    ]
    for (const schema of [zodSchema, valibotSchema]) {
      const issues = essentials(issuesOf(compileSchema(schema).validate(value)))
      expect(issues.map((i) => [i.path, i.code, i.expected, i.received])).toEqual(expected)
    }
  })

  it('collapses a Zod union of literals into one enum issue', () => {
    const schema = z.object({ a: z.union([z.literal('x'), z.literal('y')]) })
    const issues = issuesOf(compileSchema(schema).validate({ a: 'z' }))
    expect(issues).toMatchObject([{ path: 'a', code: 'invalid_enum', expected: 'one of "x", "y"', received: '"z"' }])
  })

  it('reports a TypeBox union of types as one type issue', () => {
    const issues = issuesOf(compileSchema(Type.Object({ a: Type.Union([Type.String(), Type.Null()]) })).validate({ a: 3 }))
    expect(issues).toMatchObject([{ path: 'a', code: 'invalid_type', expected: 'string or null', received: 'number' }])
  })

  it('reports a root type mismatch at the empty path', () => {
    const issues = issuesOf(compileSchema(typebox).validate([1]))
    expect(issues).toMatchObject([{ path: '', segments: [], code: 'invalid_type', expected: 'object', received: 'array' }])
  })

  it('keeps the validator message for other keywords', () => {
    const issues = issuesOf(compileSchema(Type.Object({ a: Type.String({ minLength: 3 }) })).validate({ a: 'x' }))
    expect(issues).toMatchObject([{ path: 'a', code: 'other', message: 'must not have fewer than 3 characters' }])
  })

  it('turns a plain error thrown by parse into one root issue', () => {
    const schema = {
      parse(value: unknown): number {
        if (typeof value !== 'number') throw new Error('not a number')
        return value
      },
    }
    expect(compileSchema(schema).validate('x')).toEqual({
      ok: false,
      issues: [{ path: '', segments: [], code: 'other', message: 'not a number' }],
    })
  })

  it('turns a thrown non-error into one root issue', () => {
    const schema = {
      parse(): never {
        throw 'nope' // eslint-disable-line no-throw-literal
      },
    }
    expect(issuesOf(compileSchema(schema).validate(1))).toMatchObject([{ code: 'other', message: 'nope' }])
  })

  it('answers with a promise only for an asynchronous Standard Schema', async () => {
    const schema = z.object({ a: z.string() }).refine(async () => false, { message: 'rejected later' })
    const verdict = compileSchema(schema).validate({ a: 'x' })
    expect(verdict).toBeInstanceOf(Promise)
    await expect(verdict).resolves.toMatchObject({ ok: false, issues: [{ code: 'other', message: 'rejected later' }] })
  })

  it('throws a TypeError naming what it received for a non-schema', () => {
    expect(() => compileSchema(null as never)).toThrow(/received null/)
    expect(() => compileSchema(42 as never)).toThrow(TypeError)
    expect(() => compileSchema(new Date() as never)).toThrow(/received an instance of Date/)
  })

  it('throws a clear error at compile time for a malformed JSON Schema', () => {
    expect(() => compileSchema({ type: 'strnig' })).toThrow(/invalid JSON Schema at #\/type: unknown type "strnig"/)
    expect(() => compileSchema({ $ref: '#/$defs/missing' })).toThrow(/does not resolve/)
    expect(() => compileSchema({ type: 'string', pattern: '(' })).toThrow(/could not compile the JSON Schema/)
  })

  it('infers the value type of each kind of schema', () => {
    expectTypeOf<InferSchema<typeof typebox>>().toEqualTypeOf<{ title: string; amount: number; action: 'refund' | 'reject' }>()
    expectTypeOf<InferSchema<typeof zod>>().toEqualTypeOf<{ title: string; amount: number; action: 'refund' | 'reject' }>()
    expectTypeOf<InferSchema<typeof valibot>>().toEqualTypeOf<{ title: string; amount: number; action: 'refund' | 'reject' }>()
    expectTypeOf<InferSchema<{ parse(value: unknown): Date }>>().toEqualTypeOf<Date>()
    expectTypeOf<InferSchema<typeof jsonSchema>>().toEqualTypeOf<unknown>()
    expectTypeOf(compileSchema(zod).validate).returns.toExtend<
      SchemaResult<{ title: string; amount: number; action: 'refund' | 'reject' }> | Promise<unknown>
    >()
  })
})

describe('compileSchema with boolean and $id-scoped JSON Schemas', () => {
  it('accepts anything under `true` and nothing under `false`', async () => {
    const { compileSchema } = await import('../../src/validation/index.ts')
    expect(compileSchema(true).validate({ any: 'thing' })).toMatchObject({ ok: true })
    expect(compileSchema(false).validate(1)).toMatchObject({ ok: false })
    expect(compileSchema(false).jsonSchema).toEqual({ not: {} })
  })

  it('resolves a #/ reference against the nearest $id resource, not only the document root', async () => {
    const { compileSchema } = await import('../../src/validation/index.ts')
    const schema = {
      $id: 'https://example.test/root',
      properties: { inner: { $id: 'https://example.test/inner', $defs: { n: { type: 'integer' } }, $ref: '#/$defs/n' } },
    }
    expect(() => compileSchema(schema)).not.toThrow()
    expect(() => compileSchema({ properties: { a: { $ref: '#/$defs/missing' } } })).toThrow(/does not resolve/)
  })

  it('resolves an anchor as the compiler does (both written as URLs), and refuses one it would not find instead of checking every value against false', async () => {
    for (const [ref, anchor] of [
      ['#a', 'a'],
      ['#a%20b', 'a b'],
      ['#%C3%A9', 'é'],
      ['#é', 'é'],
    ]) {
      const schema = compileSchema({ $ref: ref, $defs: { x: { $anchor: anchor, type: 'string' } } })
      expect(await schema.validate('s')).toMatchObject({ ok: true })
      expect(await schema.validate(1)).toMatchObject({ ok: false, issues: [{ code: 'invalid_type' }] })
    }
    for (const [ref, anchor] of [
      ['#a%2Fb', 'a/b'],
      ['#a%25', 'a%'],
    ]) {
      expect(() => compileSchema({ $ref: ref, $defs: { x: { $anchor: anchor, type: 'string' } } })).toThrow(`$ref "${ref}" does not resolve`)
    }
  })

  it('decodes a pointer fragment before splitting it, as RFC 6901 and the compiler do: %2F is a separator, ~1 the "/" of a key', async () => {
    expect(() => compileSchema({ $ref: '#/$defs/a%2Fb', $defs: { 'a/b': { type: 'string' } } })).toThrow('$ref "#/$defs/a%2Fb" does not resolve')
    for (const ref of ['#/$defs/a~1b', '#/$defs/a%7E1b', '#/%24defs/a~1b']) {
      const schema = compileSchema({ $ref: ref, $defs: { 'a/b': { type: 'string' } } })
      expect(await schema.validate('s')).toMatchObject({ ok: true })
      expect(await schema.validate(1)).toMatchObject({ ok: false, issues: [{ code: 'invalid_type' }] })
    }
    const nested = compileSchema({ $ref: '#/$defs/a%2Fproperties%2Fb', $defs: { a: { type: 'object', properties: { b: { type: 'string' } } } } })
    expect(await nested.validate('s')).toMatchObject({ ok: true })
    expect(await nested.validate(1)).toMatchObject({ ok: false, issues: [{ code: 'invalid_type' }] })
  })

  it('names a $ref that is no URI reference (a bare "%"), and resolves the same name escaped as %25', async () => {
    expect(() => compileSchema({ $ref: '#/$defs/100%', $defs: { '100%': {} } })).toThrow(
      /^invalid JSON Schema at #\/\$ref: \$ref "#\/\$defs\/100%" is not a valid URI reference/,
    )
    expect(() => compileSchema({ properties: { a: { $ref: '#/$defs/%zz' } }, $defs: { '%zz': {} } })).toThrow(
      /at #\/properties\/a\/\$ref: \$ref "#\/\$defs\/%zz"/,
    )
    expect(() => compileSchema({ $dynamicRef: '#/$defs/1%', $defs: { '1%': {} } })).toThrow(/\$dynamicRef "#\/\$defs\/1%" is not a valid URI reference/)
    const registry = { 'https://example.test/a': { $ref: '#/$defs/1%', $defs: { '1%': {} } } }
    expect(() => compileSchema({ $ref: 'https://example.test/a' }, { registry })).toThrow(/\$ref "#\/\$defs\/1%" is not a valid URI reference/)
    const escaped = compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/100%25' } }, $defs: { '100%': { type: 'string' } } })
    expect(await escaped.validate({ a: 'x' })).toMatchObject({ ok: true })
    expect(await escaped.validate({ a: 1 })).toMatchObject({ ok: false })
  })

  it('checks a schema too wide for generated code (an enum of 20,000 values, 10,000 properties) as it checks any other', () => {
    // On Node's main thread an enum of 500 values already overflowed; a test worker's stack is larger.
    const codes = compileSchema({ type: 'object', properties: { code: { enum: Array.from({ length: 20_000 }, (_, i) => `c${i}`) } }, required: ['code'] })
    expect(codes.validate({ code: 'c19999' })).toMatchObject({ ok: true })
    expect(codes.validate({ code: 'c20000' })).toMatchObject({ ok: false, issues: [{ path: 'code', code: 'invalid_enum' }] })
    const names = Array.from({ length: 10_000 }, (_, i) => `p${i}`)
    const wide = compileSchema({
      type: 'object',
      properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
      required: names,
      additionalProperties: false,
    })
    const value = Object.fromEntries(names.map((n) => [n, 'x']))
    expect(wide.validate(value)).toMatchObject({ ok: true })
    expect(wide.validate({ ...value, p9999: 1, extra: true })).toMatchObject({
      ok: false,
      issues: expect.arrayContaining([expect.objectContaining({ path: 'p9999' }), expect.objectContaining({ path: 'extra' })]),
    })
  })
})
