import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { compileSchema, type ValidationIssue } from '../../src/validation/index.ts'
import { issueText } from '../../src/validation/feedback/describe-issue.ts'

const HUGE = 6_000_000

describe('compileSchema (costly formats)', () => {
  it('refuses a 6 MB idn-hostname as too long to check', () => {
    const verdict = compileSchema(Type.Object({ host: Type.String({ format: 'idn-hostname' }) })).validate({ host: 'a.'.repeat(HUGE / 2) })
    expect(verdict).toMatchObject({
      ok: false,
      issues: [{ path: 'host', code: 'invalid_format', message: `not checked as format "idn-hostname": longer than 1000 characters (${HUGE})` }],
    })
  })

  it('refuses a 6 MB regex, email or idn-email as too long to check', () => {
    for (const [format, value] of [
      ['regex', 'a.'.repeat(HUGE / 2)],
      ['email', `${'a'.repeat(HUGE)}@example.com`],
      ['idn-email', `${'é'.repeat(HUGE)}@example.com`],
    ] as const) {
      const verdict = compileSchema({ type: 'string', format }).validate(value)
      expect(verdict).toMatchObject({
        ok: false,
        issues: [{ code: 'invalid_format', message: expect.stringMatching(/^not checked as format "[a-z-]+": longer than/) }],
      })
    }
  })

  it('tells the model a string too long to check was not checked, not that its format is wrong', async () => {
    const address = `${'a'.repeat(400)}@example.com`
    const verdict = await compileSchema({ type: 'object', properties: { mail: { type: 'string', format: 'email' } } }).validate({ mail: address })
    if (verdict.ok) throw new Error('an address of 412 characters passed its format')
    const issue = verdict.issues[0] as ValidationIssue
    expect(issueText(issue)).toBe(`'mail': not checked as format "email": longer than 320 characters (412)`)
    expect(issueText({ ...issue, message: 'must match format "email"' })).toMatch(/^'mail': expected email format, got "a+…"$/)
  })

  it('still checks values of a sane length with the format itself', () => {
    const schema = compileSchema(
      Type.Object({ host: Type.String({ format: 'idn-hostname' }), mail: Type.String({ format: 'email' }), re: Type.String({ format: 'regex' }) }),
    )
    expect(schema.validate({ host: 'bücher.example', mail: 'ada@example.com', re: '^[a-z]+$' })).toMatchObject({ ok: true })
    expect(schema.validate({ host: '-bad-', mail: 'not an address', re: '(' })).toMatchObject({
      ok: false,
      issues: [
        { path: 'host', code: 'invalid_format', message: 'must match format "idn-hostname"' },
        { path: 'mail', code: 'invalid_format', message: 'must match format "email"', expected: 'email' },
        { path: 're', code: 'invalid_format', message: 'must match format "regex"' },
      ],
    })
  })

  it('leaves a long string alone when formats are annotations', () => {
    expect(compileSchema({ type: 'string', format: 'idn-hostname' }, { formats: 'annotate' }).validate('a.'.repeat(HUGE / 2))).toMatchObject({ ok: true })
  })

  it('ignores a costly format on a value that is not a string', () => {
    expect(compileSchema({ format: 'email' }).validate(42)).toMatchObject({ ok: true })
  })
})
