import { Type } from 'typebox'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { mockSyncRequire } from '../support/sync-require-mock.ts'

type Validation = typeof import('../../src/validation/index.ts')

const Refund = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() })

async function freshValidation(): Promise<Validation> {
  return import('../../src/validation/index.ts')
}

beforeEach(() => {
  vi.resetModules()
})
afterEach(() => {
  vi.doUnmock('../../src/model/sync-require.ts')
})

describe('compileSchema (TypeBox compiler loading)', () => {
  it('does not load the TypeBox compiler for a Standard Schema', async () => {
    const requested = mockSyncRequire('record')
    const { compileSchema } = await freshValidation()
    const schema = compileSchema(z.object({ amount: z.number() }))
    expect(await schema.validate({ amount: 1 })).toMatchObject({ ok: true })
    expect(requested).not.toContain('typebox/compile')
  })

  it('loads the TypeBox compiler synchronously when the first TypeBox schema is compiled', async () => {
    const requested = mockSyncRequire('record')
    const { compileSchema } = await freshValidation()
    expect(requested).toEqual([])
    const verdict = compileSchema(Refund).validate({ action: 'refund', amount: 50 })
    expect(requested).toEqual(['typebox/compile', 'typebox/system', 'typebox/value'])
    expect(verdict).toEqual({ ok: true, value: { action: 'refund', amount: 50 } })
  })

  it('loads the RE2 engine only for a schema that holds a pattern', async () => {
    const requested = mockSyncRequire('record')
    const { compileSchema } = await freshValidation()
    compileSchema(Refund).validate({ action: 'refund', amount: 50 })
    expect(requested).not.toContain('re2js')
    expect(compileSchema(Type.String({ pattern: '^(a+)+$' })).validate(`${'a'.repeat(26)}!`)).toMatchObject({ ok: false })
    expect(requested).toContain('re2js')
  })

  it('loads the format registry only for a schema that asserts a costly format', async () => {
    const requested = mockSyncRequire('record')
    const { compileSchema } = await freshValidation()
    compileSchema(Type.String({ format: 'date-time' })).validate('2026-05-03T00:00:00Z')
    expect(requested).not.toContain('typebox/format')
    expect(compileSchema(Type.String({ format: 'email' })).validate('x'.repeat(1000))).toMatchObject({ ok: false, issues: [{ code: 'invalid_format' }] })
    expect(requested).toContain('typebox/format')
  })

  it('bounds costly formats where the engines load asynchronously too', async () => {
    mockSyncRequire('none')
    const { compileSchema } = await freshValidation()
    const schema = compileSchema({ type: 'string', format: 'idn-hostname' })
    expect(await schema.validate('bücher.example')).toEqual({ ok: true, value: 'bücher.example' })
    expect(await schema.validate('a.'.repeat(1000))).toMatchObject({ ok: false, issues: [{ message: /^not checked as format "idn-hostname"/ }] })
  })

  it('checks patterns on RE2 where the engines load asynchronously too', async () => {
    mockSyncRequire('none')
    const { compileSchema } = await freshValidation()
    const schema = compileSchema({ type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false })
    expect(await schema.validate({ aaaa: 1 })).toEqual({ ok: true, value: { aaaa: 1 } })
    expect(await schema.validate({ [`${'a'.repeat(26)}!`]: 1 })).toMatchObject({ ok: false, issues: [{ code: 'unknown_property' }] })
  })

  it('answers the first validation with a promise where the compiler cannot load synchronously', async () => {
    mockSyncRequire('none')
    const { compileSchema } = await freshValidation()
    const verdict = compileSchema(Refund).validate({ action: 'refund', amount: 'USD 50' })
    expect(verdict).toBeInstanceOf(Promise)
    expect(await verdict).toMatchObject({ ok: false, issues: [{ path: 'amount', code: 'invalid_type' }] })
  })

  it('settles every validation started before the compiler loaded, each with its own verdict', async () => {
    mockSyncRequire('none')
    const { compileSchema } = await freshValidation()
    const schema = compileSchema(Refund)
    const values = Array.from({ length: 50 }, (_, i) => ({ action: i % 2 === 0 ? 'refund' : 'maybe', amount: i }))
    const verdicts = await Promise.all(values.map((v) => schema.validate(v)))
    expect(verdicts.map((v) => v.ok)).toEqual(values.map((v) => v.action === 'refund'))
    expect(verdicts[0]).toEqual({ ok: true, value: values[0] })
  })

  it('validates synchronously once the compiler has loaded, for old and new schemas alike', async () => {
    mockSyncRequire('none')
    const { compileSchema } = await freshValidation()
    const early = compileSchema(Refund)
    await early.validate({})
    expect(early.validate({ action: 'reject', amount: 0 })).toEqual({ ok: true, value: { action: 'reject', amount: 0 } })
    expect(compileSchema({ type: 'string' }).validate(3)).toMatchObject({ ok: false })
  })

  it('rejects a schema with an invalid pattern at once, before the compiler loaded', async () => {
    mockSyncRequire('none')
    const { compileSchema } = await freshValidation()
    expect(() => compileSchema(Type.String({ pattern: '(' }))).toThrow(/could not compile the TypeBox schema: Invalid regular expression/)
    expect(() => compileSchema({ type: 'object', patternProperties: { '[': {} } })).toThrow(/could not compile the JSON Schema/)
  })

  it('reads `pattern` as a keyword only where it is one', async () => {
    mockSyncRequire('none')
    const { compileSchema } = await freshValidation()
    const schema = { type: 'object', properties: { pattern: { type: 'string' } }, default: { pattern: '(' }, examples: [{ pattern: '[' }] }
    expect(await compileSchema(schema).validate({ pattern: '(' })).toMatchObject({ ok: true })
  })
})
