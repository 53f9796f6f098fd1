import { Worker } from 'node:worker_threads'
import { Type } from 'typebox'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { compileSchema, DEFAULT_MAX_LENGTH, PATTERN_BUDGET } from '../../src/validation/index.ts'
import { isNativeSafe } from '../../src/validation/schema/regex/native-safe.ts'
import { translatePattern } from '../../src/validation/schema/regex/translate-pattern.ts'

const EVIL = '^(a+)+$'
const evilInput = (length: number) => `${'a'.repeat(length - 1)}!`

/** Every call of the JS engine's `exec` on a pattern with this source, while `run` runs. */
function jsEngineRunsOf(source: string, run: () => unknown): number {
  // Replacing `exec` makes V8 take the observable path: every RegExp#test goes through it.
  const spy = vi.spyOn(RegExp.prototype, 'exec')
  try {
    run()
    return spy.mock.contexts.filter((re) => (re as RegExp).source === source).length
  } finally {
    spy.mockRestore()
  }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('Regex safety', () => {
  it('checks a catastrophic pattern against a 26-character answer without the JS engine', () => {
    const schema = compileSchema({ type: 'object', properties: { code: { type: 'string', pattern: EVIL } } })
    let verdict: unknown
    expect(jsEngineRunsOf(EVIL, () => (verdict = schema.validate({ code: evilInput(26) })))).toBe(0)
    expect(verdict).toMatchObject({ ok: false, issues: [{ path: 'code', message: `must match pattern "${EVIL}"` }] })
    expect(schema.validate({ code: 'aaaa' })).toMatchObject({ ok: true })
  })

  it('matches patternProperties keys without the JS engine', () => {
    const schema = compileSchema({ type: 'object', patternProperties: { [EVIL]: { type: 'number' } }, additionalProperties: false })
    let verdict: unknown
    expect(jsEngineRunsOf(EVIL, () => (verdict = schema.validate({ [evilInput(26)]: 1, aaa: 'x' })))).toBe(0)
    expect(verdict).toMatchObject({
      ok: false,
      issues: expect.arrayContaining([
        expect.objectContaining({ path: 'aaa', code: 'invalid_type', expected: 'number' }),
        expect.objectContaining({ code: 'unknown_property', segments: [evilInput(26)] }),
      ]),
    })
    expect(jsEngineRunsOf(EVIL, () => schema.test?.({ aaaa: 2 }))).toBe(0)
  })

  it('finishes on answers of 26 characters and of the size cap, in a worker that would otherwise hang', async () => {
    const source = `
      const { parentPort } = require('node:worker_threads')
      import(${JSON.stringify(new URL('../../src/validation/index.ts', import.meta.url).href)}).then(({ compileSchema }) => {
        const schema = compileSchema({ type: 'object', properties: { code: { type: 'string', pattern: ${JSON.stringify(EVIL)} } }, patternProperties: { ${JSON.stringify(EVIL)}: {} } })
        const verdicts = [26, ${DEFAULT_MAX_LENGTH - 20}].map((n) => schema.validate({ code: 'a'.repeat(n - 1) + '!', ['a'.repeat(n - 1) + '!']: 1 }).ok)
        parentPort.postMessage(verdicts)
      })`
    const worker = new Worker(source, { eval: true })
    const answer = await new Promise<unknown>((resolve, reject) => {
      // A generous bound that only a backtracking engine misses (2^26 steps and beyond); not a speed assertion.
      const timer = setTimeout(() => reject(new Error('the schema check did not finish: a backtracking engine ran')), 20_000)
      worker.once('message', (m) => (clearTimeout(timer), resolve(m)))
      worker.once('error', (e) => (clearTimeout(timer), reject(e)))
    })
    await worker.terminate()
    expect(answer).toEqual([false, false])
  }, 30_000)

  it('fails a string beyond the pattern budget with an issue saying it was not checked, never passing it', () => {
    const schema = compileSchema(Type.Array(Type.String({ pattern: '^[a-z]+[0-9]*$' })))
    const long = 'a'.repeat(PATTERN_BUDGET + 1)
    expect(schema.validate([long])).toMatchObject({ ok: false, issues: [{ path: '[0]', message: expect.stringMatching(/^not checked against its pattern/) }] })
    expect(schema.validate(['abc'])).toMatchObject({ ok: true })
  })

  it('keeps ECMAScript meaning for dot, spaces, Unicode escapes and properties, and long counts', () => {
    const check = (pattern: string, input: string) => (compileSchema({ type: 'string', pattern }).validate(input) as { ok: boolean }).ok
    expect(check('^a.b$', 'a\nb')).toBe(false)
    expect(check('^a.b$', 'a\u2028b')).toBe(false)
    expect(check('^a.b$', 'a😀b')).toBe(true)
    expect(check('^\\s$', '\u00a0')).toBe(true)
    expect(check('^[^\\s]+$', 'a\u3000b')).toBe(false)
    expect(check('^\\u00e9\\uD83D\\uDE00$', 'é😀')).toBe(true)
    expect(check('^\\p{Letter}+$', 'Ωmega')).toBe(true)
    expect(check('^\\p{Script=Greek}+$', 'Ωμ')).toBe(true)
    expect(check('^\\cJ$', '\n')).toBe(true)
    expect(check('^(?<word>[a-z]+)$', 'abc')).toBe(true)
    expect(check('^a{1,2000}$', 'a'.repeat(1500))).toBe(true)
    expect(check('^a{1,2000}$', 'a'.repeat(2001))).toBe(false)
    expect(check('^(?:ab){1001,1500}$', 'ab'.repeat(1001))).toBe(true)
    expect(check('^(?:ab){1001,1500}$', 'ab'.repeat(1000))).toBe(false)
    expect(check('(?<=\\$)\\d+', '$42')).toBe(true)
  })

  it('runs lookaheads that guard the start of an anchored pattern as separate RE2 checks', () => {
    const schema = compileSchema({ type: 'string', pattern: '^(?!org\\.bukkit\\.)(?=.{1,20}$)[a-z.]+$' })
    expect(schema.validate('com.example')).toMatchObject({ ok: true })
    expect(schema.validate('org.bukkit.plugin')).toMatchObject({ ok: false })
    expect(schema.validate('a'.repeat(21))).toMatchObject({ ok: false })
  })

  it('runs on the JS engine only patterns it runs in linear time anyway', () => {
    expect(isNativeSafe('^[a-z0-9-]{1,64}$')).toBe(true)
    expect(isNativeSafe('^\\d{4}-\\d{2}-\\d{2}$')).toBe(true)
    expect(isNativeSafe(EVIL)).toBe(false)
    expect(isNativeSafe('^[a-z]+[0-9]*$')).toBe(false)
    expect(isNativeSafe('[a-z]+')).toBe(false)
    const schema = compileSchema({ type: 'string', pattern: '^[a-z]{1,2000}$' })
    expect(jsEngineRunsOf('^[a-z]{1,2000}$', () => schema.validate('abc'))).toBeGreaterThan(0)
  })

  it('refuses at compile time what RE2 cannot run in linear time, saying why', () => {
    expect(() => compileSchema({ type: 'string', pattern: '^(a)\\1$' })).toThrow(/uses a backreference, which the linear-time engine \(RE2\) cannot run/)
    expect(() => compileSchema({ type: 'string', pattern: '^((?!mode).)*$' })).toThrow(/a lookahead that does not guard the start of an anchored pattern/)
    expect(translatePattern('^(?!x)y$')).toEqual({ ok: true, main: '^y$', guards: [{ body: 'x', negated: true }], lookbehind: false })
  })

  it('leaves quantifier-free patternProperties to TypeBox, exact for unevaluatedProperties too', () => {
    const schema = compileSchema({ type: 'object', patternProperties: { '^foo': { type: 'string' } }, unevaluatedProperties: false })
    expect(schema.validate({ foo: 'x' })).toMatchObject({ ok: true })
    expect(schema.validate({ foo: 'x', bar: 1 })).toMatchObject({ ok: false })
  })

  it('never changes the schema it was given, nor the JSON Schema sent to providers', () => {
    const raw = {
      type: 'object',
      properties: { a: { type: 'string', pattern: EVIL } },
      patternProperties: { '^x-.+$': { type: 'number' } },
      additionalProperties: false,
    }
    const copy = structuredClone(raw)
    const compiled = compileSchema(raw)
    compiled.validate({ a: 'aa', 'x-y': 1 })
    expect(raw).toEqual(copy)
    expect(compiled.jsonSchema).toBe(raw)
  })

  it('keeps TypeBox records working through the rewrite, with nested issue paths', () => {
    const schema = compileSchema(Type.Record(Type.String(), Type.Object({ n: Type.Number() })))
    expect(schema.validate({ a: { n: 1 } })).toMatchObject({ ok: true })
    expect(schema.validate({ a: { n: 'x' } })).toMatchObject({ ok: false, issues: [{ path: 'a.n', code: 'invalid_type' }] })
  })
})
