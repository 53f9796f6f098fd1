import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import {
  compileSchema,
  formatFeedback,
  formatIssueLine,
  formatIssueLines,
  summarizeFailure,
  TRUNCATION_MARKER,
  truncateForFeedback,
  type ValidationIssue,
} from '../../src/validation/index.ts'

function issuesFor(schema: Parameters<typeof compileSchema>[0], value: unknown): readonly ValidationIssue[] {
  const result = compileSchema(schema).validate(value)
  if (result instanceof Promise || result.ok) throw new Error('expected a synchronous rejection')
  return result.issues
}

const issue = (init: Partial<ValidationIssue> & Pick<ValidationIssue, 'code'>): ValidationIssue => ({
  path: 'x',
  segments: ['x'],
  message: 'validator message',
  ...init,
})

describe('formatIssueLines', () => {
  it('shows at most the given number of lines, then how many more there are', () => {
    const issues = ['a', 'b', 'c', 'd'].map((path) => issue({ code: 'unknown_property', path, segments: [path] }))
    expect(formatIssueLines(issues, 2)).toEqual(["- 'a': unknown field — remove it", "- 'b': unknown field — remove it", '- … and 2 more issues'])
    expect(formatIssueLines(issues, 3).at(-1)).toBe('- … and 1 more issue')
    expect(formatIssueLines(issues)).toHaveLength(4)
  })
})

describe('formatIssueLine', () => {
  it.each([
    [
      Type.Object({ items: Type.Array(Type.Object({ title: Type.String() })) }),
      { items: [{}] },
      "- 'items[0].title': required field is missing — provide a value",
    ],
    [Type.Object({ title: Type.String() }), { title: 5 }, "- 'title': expected string, got number"],
    [Type.Object({ amount: Type.Number() }), { amount: 'USD 50' }, '- \'amount\': expected number, got "USD 50"'],
    [Type.Object({ n: Type.Integer() }), { n: 'seven' }, '- \'n\': expected integer, got "seven"'],
    [Type.Object({ tags: Type.Array(Type.String()) }), { tags: 'a,b' }, "- 'tags': expected list/array, got string"],
    [Type.Object({ meta: Type.Object({}) }), { meta: [] }, "- 'meta': expected object, got array"],
    [
      Type.Object({ due: Type.String({ format: 'date-time' }) }),
      { due: 'tomorrow' },
      "- 'due': expected ISO datetime (e.g. '2026-05-03T00:00:00'), got \"tomorrow\"",
    ],
    [Type.Object({ day: Type.String({ format: 'date' }) }), { day: 'monday' }, "- 'day': expected ISO date (e.g. '2026-05-03'), got \"monday\""],
    [Type.Object({ mail: Type.String({ format: 'email' }) }), { mail: 'nope' }, '- \'mail\': expected email format, got "nope"'],
    [Type.Object({}, { additionalProperties: false }), { extra: 1 }, "- 'extra': unknown field — remove it"],
    [
      Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]) }),
      { action: 'maybe' },
      '- \'action\': expected one of "refund", "reject", got "maybe"',
    ],
    [Type.Object({ a: Type.String({ minLength: 3 }) }), { a: 'x' }, "- 'a': must not have fewer than 3 characters"],
  ])('renders %# as the table line', (schema, value, line) => {
    expect(issuesFor(schema, value).map(formatIssueLine)).toEqual([line])
  })

  it('renders a forbidden key', () => {
    expect(formatIssueLine(issue({ path: '__proto__', code: 'forbidden_key' }))).toBe("- '__proto__': forbidden key — remove it")
  })

  it('labels the root path (root)', () => {
    expect(issuesFor(Type.Object({}), 'text').map(formatIssueLine)).toEqual(["- '(root)': expected object, got string"])
  })

  it('falls back to the validator message when an issue lacks its expectation', () => {
    expect(formatIssueLine(issue({ code: 'invalid_type' }))).toBe("- 'x': validator message")
  })
})

describe('formatFeedback', () => {
  const issues = issuesFor(Type.Object({ amount: Type.Number() }, { additionalProperties: false }), { amount: 'USD 50', extra: 1 })

  it('frames schema issues of a final answer', () => {
    expect(formatFeedback({ target: 'final', stage: 'schema-validate', issues })).toBe(
      [
        'Your previous response failed schema validation.',
        'Validation errors:',
        '- \'amount\': expected number, got "USD 50"',
        "- 'extra': unknown field — remove it",
        'Please fix these issues and return a corrected JSON object.',
      ].join('\n'),
    )
  })

  it('frames a parse error of a final answer', () => {
    expect(formatFeedback({ target: 'final', stage: 'json-parse', issues: [], parseError: 'the response is empty' })).toBe(
      [
        'Your previous response was not valid JSON: the response is empty',
        'Please return only a valid JSON object, with no surrounding prose or markdown fences.',
      ].join('\n'),
    )
  })

  it('frames invalid tool arguments and appends the retry hint', () => {
    expect(formatFeedback({ target: 'tool', stage: 'tool-args', issues, toolName: 'refund', retryHint: 'Amounts are plain numbers.' })).toBe(
      [
        'Your previous tool call had invalid arguments. Fix these issues:',
        '- \'amount\': expected number, got "USD 50"',
        "- 'extra': unknown field — remove it",
        '',
        'Retry the tool call with corrected arguments.',
        'Amounts are plain numbers.',
      ].join('\n'),
    )
  })

  it('shows at most maxIssues lines and counts the rest', () => {
    const many = Array.from({ length: 25 }, (_, i) => issue({ path: `f${i}`, code: 'missing_required' }))
    const lines = formatFeedback({ target: 'final', stage: 'schema-validate', issues: many }).split('\n')
    expect(lines).toHaveLength(2 + 20 + 1 + 1)
    expect(lines[22]).toBe('- … and 5 more issues')
    expect(formatFeedback({ target: 'final', stage: 'schema-validate', issues: many, maxIssues: 2 }).split('\n')[4]).toBe('- … and 23 more issues')
  })

  it('never echoes the rejected value or a URL', () => {
    const secret = issuesFor(Type.Object({ n: Type.Number() }), { n: { deep: 'SECRET-VALUE' } })
    const text = formatFeedback({ target: 'final', stage: 'schema-validate', issues: secret })
    expect(text).not.toContain('SECRET-VALUE')
    expect(text).not.toMatch(/https?:\/\//)
  })
})

describe('truncateForFeedback', () => {
  it('returns a short text unchanged', () => {
    expect(truncateForFeedback('hello', 5)).toBe('hello')
  })

  it('cuts a long text and ends it with the marker on its own line, the whole within the bound', () => {
    const cut = truncateForFeedback('abcdefgh'.repeat(10), TRUNCATION_MARKER.length + 4)
    expect(cut).toBe(`abc\n${TRUNCATION_MARKER}`)
    expect(cut).toHaveLength(TRUNCATION_MARKER.length + 4)
    expect(TRUNCATION_MARKER).toBe('[…truncated for length…]')
  })

  it('does not split a surrogate pair', () => {
    expect(truncateForFeedback('a😀b'.repeat(20), TRUNCATION_MARKER.length + 3)).toBe(`a\n${TRUNCATION_MARKER}`)
  })

  it('keeps a bound smaller than the marker', () => {
    expect(truncateForFeedback('abcdefgh'.repeat(10), 5)).toHaveLength(5)
  })
})

describe('summarizeFailure', () => {
  it('lists the first issues on one line', () => {
    const issues = issuesFor(Type.Object({ amount: Type.Number() }, { additionalProperties: false }), { amount: 'USD 50', extra: 1 })
    expect(summarizeFailure('schema-validate', issues)).toBe("schema-validate: 'amount': expected number, got \"USD 50\"; 'extra': unknown field")
  })

  it('keeps only five issues and counts the rest', () => {
    const many = Array.from({ length: 7 }, (_, i) => issue({ path: `f${i}`, code: 'missing_required' }))
    const summary = summarizeFailure('schema-validate', many)
    expect(summary).toContain("'f4': required field is missing")
    expect(summary).not.toContain("'f5'")
    expect(summary.endsWith('; and 2 more')).toBe(true)
  })

  it('summarises a parse failure with its message', () => {
    expect(summarizeFailure('json-parse', [], 'the response is empty')).toBe('json-parse: the response is empty')
  })

  it('is identical for identical failures', () => {
    const a = issuesFor(Type.Object({ n: Type.Number() }), { n: 'x' })
    const b = issuesFor(Type.Object({ n: Type.Number() }), { n: 'x' })
    expect(summarizeFailure('tool-args', a)).toBe(summarizeFailure('tool-args', b))
  })
})
