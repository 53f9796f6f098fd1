import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { compileSchema, type SchemaResult } from '../../src/validation/index.ts'

/** The synchronous verdict of a schema (every schema here answers synchronously). */
function verdict(result: SchemaResult<unknown> | Promise<SchemaResult<unknown>>): SchemaResult<unknown> {
  if (result instanceof Promise) throw new Error('expected a synchronous verdict')
  return result
}

/** The one-line message of a rejection by a `{ parse }` schema that threw `thrown`. */
function thrownMessage(thrown: unknown): string {
  const result = verdict(
    compileSchema({
      parse: () => {
        throw thrown
      },
    }).validate({ a: 1 }),
  )
  if (result.ok) throw new Error('expected a rejection')
  expect(result.issues).toHaveLength(1)
  const message = result.issues[0]?.message ?? ''
  expect(message).not.toMatch(/[\r\n]/)
  expect(message.length).toBeGreaterThan(0)
  expect(message.length).toBeLessThanOrEqual(300)
  return message
}

describe('A { parse } schema that throws anything', () => {
  it('describes an object without a prototype', () => {
    expect(thrownMessage(Object.create(null))).toMatch(/object/)
  })

  it('describes a null-prototype object with a string message by its message', () => {
    expect(thrownMessage(Object.assign(Object.create(null), { message: 'amount must be positive' }))).toBe('amount must be positive')
  })

  it('describes a Symbol', () => {
    expect(thrownMessage(Symbol('nope'))).toBe('Symbol(nope)')
  })

  it('describes an object whose toString throws', () => {
    expect(
      thrownMessage({
        toString() {
          throw new Error('no string for you')
        },
      }),
    ).toMatch(/object/)
  })

  it('describes a Proxy that throws on every trap', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
        getPrototypeOf() {
          throw new Error('trap')
        },
        has() {
          throw new Error('trap')
        },
      },
    )
    expect(thrownMessage(hostile)).toMatch(/object/)
  })

  it('describes an error whose message getter throws', () => {
    const error = new Error('x')
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('getter')
      },
    })
    expect(thrownMessage(error)).toMatch(/Error/)
  })

  it('describes an object whose issues getter throws by its message', () => {
    const thrown = {
      message: 'bad value',
      get issues() {
        throw new Error('getter')
      },
    }
    expect(thrownMessage(thrown)).toBe('bad value')
  })

  it('keeps a thrown multi-line message on one line', () => {
    expect(thrownMessage(new Error('first\nsecond\r\nthird'))).toBe('first second third')
  })

  it('cuts a huge thrown message', () => {
    expect(thrownMessage(new Error('x'.repeat(100_000))).length).toBeLessThanOrEqual(300)
  })

  it('describes null, undefined, a number and a BigInt', () => {
    expect(thrownMessage(null)).toBe('null')
    expect(thrownMessage(undefined)).toMatch(/rejected|undefined/)
    expect(thrownMessage(42)).toBe('42')
    expect(thrownMessage(10n)).toBe('10')
  })

  it('keeps the issues of a thrown ZodError-like object whose issues are hostile values', () => {
    const message = thrownMessage({ message: 'invalid', issues: [Object.create(null), Symbol('s'), null] })
    expect(typeof message).toBe('string')
  })
})

describe('compileSchema options', () => {
  const schema = { type: 'string' }

  it('refuses a formats option that is not assert or annotate', () => {
    expect(() => compileSchema(schema, { formats: 'maybe' as never })).toThrow(TypeError)
    expect(() => compileSchema(schema, { formats: 'maybe' as never })).toThrow(/compileSchema.*formats/)
  })

  it('refuses a registry that is not a list or a record of schemas', () => {
    expect(() => compileSchema(schema, { registry: 'nope' as never })).toThrow(TypeError)
    expect(() => compileSchema(schema, { registry: 'nope' as never })).toThrow(/compileSchema.*registry/)
    expect(() => compileSchema(schema, { registry: 42 as never })).toThrow(/compileSchema.*registry/)
    expect(() => compileSchema(schema, { registry: null as never })).toThrow(/compileSchema.*registry/)
  })

  it('refuses a registry record whose entries are not schemas', () => {
    expect(() => compileSchema(schema, { registry: { 'https://example.com/a.json': 'string' } as never })).toThrow(/compileSchema.*registry/)
  })

  it('refuses unknown option keys, naming them', () => {
    expect(() => compileSchema(schema, { format: 'annotate' } as never)).toThrow(TypeError)
    expect(() => compileSchema(schema, { format: 'annotate' } as never)).toThrow(/compileSchema.*unknown option "format"/)
  })

  it('refuses options that are no object', () => {
    expect(() => compileSchema(schema, 'annotate' as never)).toThrow(/compileSchema: options must be an object/)
    expect(() => compileSchema(schema, [] as never)).toThrow(/compileSchema: options must be an object/)
  })

  it('refuses bad options even for a schema compiled before', () => {
    const compiled = compileSchema({ type: 'number' })
    expect(() => compileSchema(compiled, { formats: 'nope' as never })).toThrow(/formats/)
  })

  it('refuses an options object whose getter throws with a TypeError', () => {
    const options = {
      get formats(): never {
        throw new Error('getter')
      },
    }
    expect(() => compileSchema(schema, options)).toThrow(TypeError)
  })
})

describe('A plain object that is no JSON Schema', () => {
  it('is refused: field names mapped to type names', () => {
    expect(() => compileSchema({ orderId: 'string', amount: 'number' } as never)).toThrow(TypeError)
    expect(() => compileSchema({ orderId: 'string', amount: 'number' } as never)).toThrow(/no JSON Schema keyword.*orderId/)
  })

  it('is refused: field names mapped to schemas, without properties around them', () => {
    expect(() => compileSchema({ orderId: { type: 'string' } } as never)).toThrow(/no JSON Schema keyword.*properties/)
  })

  it('is refused with prototype keys only', () => {
    expect(() => compileSchema(JSON.parse('{"__proto__": {"type": "string"}}') as never)).toThrow(TypeError)
    expect(() => compileSchema({ constructor: 'string' } as never)).toThrow(TypeError)
  })

  it('is refused with a null prototype', () => {
    expect(() => compileSchema(Object.assign(Object.create(null), { name: 'string' }) as never)).toThrow(TypeError)
  })

  it('is refused as a tool input schema too', async () => {
    const { tool } = await import('../../src/index.ts')
    expect(() => tool({ name: 'lookup', description: 'd', input: { orderId: 'string' } as never, execute: () => 'x' })).toThrow(/no JSON Schema keyword/)
  })

  it('is refused by the types where a schema is expected', async () => {
    const { createGate, tool } = await import('../../src/index.ts')
    // @ts-expect-error no JSON Schema keyword
    expect(() => compileSchema({ orderId: 'string', amount: 'number' })).toThrow(TypeError)
    // @ts-expect-error no JSON Schema keyword
    expect(() => tool({ name: 'a', description: 'b', input: { orderId: 'string' }, execute: () => 'x' })).toThrow(TypeError)
    // @ts-expect-error no JSON Schema keyword
    expect(() => createGate({ providers: scripted(['{}']), outputSchema: { orderId: 'string' } })).toThrow(TypeError)
    const record: Readonly<Record<string, unknown>> = { type: 'string' }
    expect(verdict(compileSchema(record).validate('a')).ok).toBe(true)
  })

  it('leaves the accept-all schemas legal', () => {
    expect(verdict(compileSchema({}).validate({ anything: 1 })).ok).toBe(true)
    expect(verdict(compileSchema(true).validate('x')).ok).toBe(true)
    expect(verdict(compileSchema(false).validate('x')).ok).toBe(false)
  })

  it('leaves schemas with annotations only legal', () => {
    expect(verdict(compileSchema({ description: 'anything', title: 'Any' }).validate(3)).ok).toBe(true)
    expect(verdict(compileSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema' }).validate(3)).ok).toBe(true)
  })

  it('leaves an object schema with properties legal', () => {
    const compiled = compileSchema({ type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] })
    expect(verdict(compiled.validate({ orderId: 'A1' })).ok).toBe(true)
    expect(verdict(compiled.validate({ orderId: 1 })).ok).toBe(false)
  })

  it('leaves a schema with a keyword and extra vendor keys legal', () => {
    expect(verdict(compileSchema({ type: 'string', 'x-order': 1 }).validate('a')).ok).toBe(true)
  })

  it('leaves TypeBox schemas alone', () => {
    expect(verdict(compileSchema(Type.Unknown()).validate(1)).ok).toBe(true)
    expect(verdict(compileSchema(Type.Any()).validate(1)).ok).toBe(true)
  })
})

describe('$ref that resolves nowhere', () => {
  it('refuses an absolute reference without a registry, naming it', () => {
    expect(() => compileSchema({ $ref: 'https://example.com/money.json' })).toThrow(/https:\/\/example\.com\/money\.json/)
    expect(() => compileSchema({ type: 'object', properties: { total: { $ref: 'https://example.com/money.json' } } })).toThrow(/unresolved|does not resolve/)
  })

  it('refuses a relative reference to a document nobody registered', () => {
    expect(() => compileSchema({ $ref: 'money.json' })).toThrow(/money\.json/)
  })

  it('refuses an anchor that no schema declares', () => {
    expect(() => compileSchema({ $defs: { a: { $anchor: 'money', type: 'number' } }, $ref: '#cash' })).toThrow(/#cash/)
  })

  it('resolves a registered reference, an anchor and a nested $id', () => {
    const money = { $id: 'https://example.com/money.json', type: 'number' }
    expect(verdict(compileSchema({ $ref: 'https://example.com/money.json' }, { registry: [money] }).validate(3)).ok).toBe(true)
    expect(verdict(compileSchema({ $defs: { a: { $anchor: 'money', type: 'number' } }, $ref: '#money' }).validate(3)).ok).toBe(true)
    const nested = { $id: 'https://example.com/root.json', $defs: { m: { $id: 'money.json', type: 'number' } }, $ref: 'money.json' }
    expect(verdict(compileSchema(nested).validate('x')).ok).toBe(false)
  })

  it('resolves the meta-schemas', () => {
    expect(verdict(compileSchema({ $ref: 'http://json-schema.org/draft-07/schema#' }).validate({ type: 'string' })).ok).toBe(true)
  })

  it('refuses a schema that is only a reference to itself', () => {
    expect(() => compileSchema({ $ref: '#' })).toThrow(/refers to itself|never terminates/)
  })

  it('refuses references that loop through in-place applicators', () => {
    expect(() => compileSchema({ $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' })).toThrow(
      /refers to itself|never terminates/,
    )
    expect(() => compileSchema({ anyOf: [{ type: 'string' }, { $ref: '#' }] })).toThrow(/refers to itself|never terminates/)
  })

  it('keeps a legal recursive tree working', () => {
    const tree = {
      type: 'object',
      properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['value'],
    }
    const compiled = compileSchema(tree)
    expect(verdict(compiled.validate({ value: 1, children: [{ value: 2, children: [{ value: 3 }] }] })).ok).toBe(true)
    expect(verdict(compiled.validate({ value: 1, children: [{ value: 'x' }] })).ok).toBe(false)
    const linked = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' }
    expect(verdict(compileSchema(linked).validate({ next: { next: {} } })).ok).toBe(true)
  })
})

describe('Schemas that are huge, deep or cyclic', () => {
  it('compiles a deep chain of nested objects without overflowing the stack', () => {
    let schema: Record<string, unknown> = { type: 'number' }
    for (let i = 0; i < 300; i++) schema = { type: 'object', properties: { a: schema } }
    expect(() => compileSchema(schema)).not.toThrow(RangeError)
  })

  it('refuses a schema object that contains itself as a subschema in place', () => {
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic['allOf'] = [cyclic]
    expect(() => compileSchema(cyclic)).toThrow(/cycle of objects/)
  })

  it('compiles a schema with thousands of properties', () => {
    const properties = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'integer' }]))
    const compiled = compileSchema({ type: 'object', properties })
    expect(verdict(compiled.validate({ p1: 1, p1999: 'x' })).ok).toBe(false)
  })

  it('refuses a property named __proto__ in nothing but data', () => {
    const schema = JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}}')
    const compiled = compileSchema(schema)
    expect(verdict(compiled.validate(JSON.parse('{"__proto__": 1}'))).ok).toBe(false)
  })
})

describe('A { parse } schema that answers with a thenable', () => {
  it('makes validate answer a promise of the verdict, never accept the thenable itself', async () => {
    const result = compileSchema({ parse: async (value: unknown) => value }).validate({ a: 1 })
    expect(result).toBeInstanceOf(Promise)
    await expect(result).resolves.toEqual({ ok: true, value: { a: 1 } })
  })

  it('makes a rejection a rejection with a one-line message', async () => {
    const result = compileSchema({ parse: () => Promise.reject(Object.create(null)) }).validate(1)
    expect(result).toBeInstanceOf(Promise)
    await expect(result).resolves.toMatchObject({ ok: false, issues: [{ message: expect.stringMatching(/object/) }] })
  })

  it('adopts a bare thenable, and a then method that throws is a rejection', async () => {
    const thenable = { then: (ok: (v: unknown) => void) => ok(42) }
    await expect(compileSchema({ parse: () => thenable }).validate(1)).resolves.toEqual({ ok: true, value: 42 })
    const hostile = {
      then() {
        throw new Error('then throws')
      },
    }
    await expect(compileSchema({ parse: () => hostile }).validate(1)).resolves.toMatchObject({ ok: false, issues: [{ message: 'then throws' }] })
  })
})

describe('A Standard Schema that answers with a thenable', () => {
  it('makes validate answer a promise of the verdict', async () => {
    const schema = {
      '~standard': { version: 1, vendor: 'hand', validate: (value: unknown) => ({ then: (ok: (v: unknown) => void) => ok({ value }) }) },
    }
    const result = compileSchema(schema as never).validate('x')
    expect(result).toBeInstanceOf(Promise)
    await expect(result).resolves.toEqual({ ok: true, value: 'x' })
  })
})

describe('A Standard Schema that answers something other than a result', () => {
  const standard = (validate: (value: unknown) => unknown) => ({ '~standard': { version: 1, vendor: 'hand', validate } })
  const throwing = (message: string) => () => {
    throw new Error(message)
  }

  it.each([
    ['undefined', () => undefined, 'the schema answered undefined, not a result with a value or issues'],
    ['null', () => null, 'the schema answered null, not a result with a value or issues'],
    [
      'a result whose issues getter throws',
      () => ({
        get issues(): never {
          return throwing('issues unreadable')()
        },
      }),
      'issues unreadable',
    ],
    [
      'a result whose value getter throws',
      () => ({
        get value(): never {
          return throwing('value unreadable')()
        },
      }),
      'value unreadable',
    ],
    [
      'an issue whose path key cannot be turned into text',
      () => ({ issues: [{ message: 'm', path: [{ key: { toString: throwing('key unreadable') } }] }] }),
      'key unreadable',
    ],
  ])('rejects the value when it answers %s, never a TypeError of ours', (_name, validate, message) => {
    const result = verdict(compileSchema(standard(validate) as never).validate({ a: 1 }))
    expect(result).toMatchObject({ ok: false, issues: [{ path: '', code: 'other', message }] })
  })

  it('fails the run as a validation failure, not as a failed provider call', async () => {
    const error = await createGate({ providers: scripted(['{"a": 1}']), outputSchema: standard(() => undefined) as never })
      .run({ messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => undefined,
        (e: unknown) => e as { kind: string; validationError?: { stage: string } },
      )
    expect(error?.kind).toBe('schema-fail')
    expect(error?.validationError?.stage).toBe('schema-validate')
  })
})
