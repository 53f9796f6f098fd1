import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { buildValidationFeedback, echoPreviousOutput, type FeedbackContext } from '../../src/gate/build-feedback.ts'
import {
  compileSchema,
  countFeedbackTokens,
  cutToTokens,
  feedbackTemplateVars,
  renderErrorTemplate,
  TRUNCATION_MARKER,
  truncateEcho,
  validateFinalAnswer,
} from '../../src/validation/index.ts'
import type { ValidationFailure } from '../../src/validation/validation-failure.ts'

const Report = compileSchema(
  Type.Object({ entries: Type.Array(Type.Object({ evidence: Type.String(), score: Type.Number() })) }, { additionalProperties: false }),
)

function failureOf(text: string): ValidationFailure {
  const verdict = validateFinalAnswer(text, Report)
  if (verdict instanceof Promise || verdict.ok) throw new Error('expected a synchronous failure')
  return verdict.failure
}

const schemaFailure = failureOf('{"entries": [{"evidence": 7, "score": "high"}]}')
const parseFailure = failureOf('not json at all')

function context(overrides: Partial<FeedbackContext> = {}): FeedbackContext & { readonly templateErrors: unknown[] } {
  const templateErrors: unknown[] = []
  return {
    attempt: 1,
    retryHint: undefined,
    errorTemplate: undefined,
    maxFeedbackChars: 4000,
    maxFeedbackTokens: undefined,
    onTemplateError: (e) => templateErrors.push(e),
    ...overrides,
    templateErrors,
  }
}

describe('buildValidationFeedback', () => {
  it('frames schema errors in pyconveyor wording with bracketed index paths, then the hint', () => {
    expect(buildValidationFeedback(schemaFailure, context({ retryHint: 'Scores are numbers.' }))).toBe(
      [
        'Your previous response failed schema validation.',
        'Validation errors:',
        "- 'entries[0].evidence': expected string, got number",
        '- \'entries[0].score\': expected number, got "high"',
        'Please fix these issues and return a corrected JSON object.',
        'Scores are numbers.',
      ].join('\n'),
    )
  })

  it("frames parse errors with the parser's message and asks for bare JSON", () => {
    const text = buildValidationFeedback(parseFailure, context())
    expect(text.split('\n')[0]).toBe('Your previous response was not valid JSON: no JSON object or array found in the response')
    expect(text.split('\n').at(-1)).toBe('Please return only a valid JSON object, with no surrounding prose or markdown fences.')
  })

  it('does not repeat the previous output, which the retry conversation already echoes', () => {
    expect(buildValidationFeedback(schemaFailure, context())).not.toContain('"high"}')
  })

  it('renders a Jinja string template with pyconveyor variables', () => {
    // Block tags on lines of their own, as pyconveyor writes them: trim_blocks drops their newlines.
    const template = [
      'Attempt {{ attempt }} ({{ error_type }}):',
      '{% for e in errors %}',
      '* {{ e.loc_str }} [{{ e.type }}]: {{ e.msg }}',
      '{% endfor %}',
      'You said: {{ previous_output }}',
      '{{ retry_hint }} / {{ max_feedback_tokens }}',
      '',
    ].join('\n')
    const text = buildValidationFeedback(schemaFailure, context({ errorTemplate: template, attempt: 1, retryHint: 'Be careful.', maxFeedbackTokens: 50 }))
    expect(text).toBe(
      [
        'Attempt 2 (schema):',
        '* entries[0].evidence [invalid_type]: expected string, got number',
        '* entries[0].score [invalid_type]: expected number, got "high"',
        'You said: {"entries": [{"evidence": 7, "score": "high"}]}',
        'Be careful. / 50',
      ].join('\n'),
    )
  })

  it('passes the parse error message to a function template', () => {
    const text = buildValidationFeedback(parseFailure, context({ errorTemplate: (v) => `${v.error_type}|${v.errors.length}|${v.parse_error_message}` }))
    expect(text).toBe('parse|0|no JSON object or array found in the response')
  })

  it('falls back to the built-in feedback and reports a template that fails to render', () => {
    const ctx = context({ errorTemplate: '{{ errors[0].loc_str ' })
    expect(buildValidationFeedback(schemaFailure, ctx)).toMatch(/^Your previous response failed schema validation\./)
    expect(ctx.templateErrors).toHaveLength(1)
  })

  it('falls back when a function template throws or returns nothing', () => {
    const throwing = context({
      errorTemplate: () => {
        throw new Error('boom')
      },
    })
    expect(buildValidationFeedback(schemaFailure, throwing)).toContain("- 'entries[0].score'")
    expect(throwing.templateErrors).toEqual([new Error('boom')])
    const empty = context({ errorTemplate: () => '  ' })
    expect(buildValidationFeedback(schemaFailure, empty)).toContain('Validation errors:')
    expect(empty.templateErrors).toHaveLength(1)
  })
})

describe('renderErrorTemplate', () => {
  it('drops the newline after a block tag and the indentation before it, as Jinja2 trim_blocks and lstrip_blocks do', () => {
    const vars = feedbackTemplateVars(schemaFailure, { attempt: 1, previousOutput: 'x' })
    // Each expected text is what Python's Jinja2 3.1 renders with trim_blocks=True, lstrip_blocks=True.
    const cases: [string, string][] = [
      [
        'Attempt {{ attempt }}:\n  {% for e in errors %}\n    - {{ e.loc_str }}\n  {% endfor %}\nend\n',
        'Attempt 2:\n    - entries[0].evidence\n    - entries[0].score\nend',
      ],
      ['a {% if retry_hint == "" %}no hint{% endif %} b\n{% if true %}x{% endif %}\ny', 'a no hint b\nxy'],
      ['  {# note #}\nline\n{#- c -#}\n  z', 'linez'],
      ['a\n{% if true %}\nb\n{% endif %}\n\n', 'a\nb\n'],
      ['  {{ attempt }}\n  {{ attempt }}\n', '  2\n  2'],
      ['{%- if true -%}\n  x\n{%- endif %}\n!', 'x!'],
      ['{% if true %}\r\nx\r\n{% endif %}\r\ny', 'x\ny'],
      ['\t{% for e in errors %}\n\t* {{ e.type }}\n\t{% endfor %}\n', '\t* invalid_type\n\t* invalid_type\n'],
      ['x  {% if true %}\ny{% endif %}\n', 'x  y'],
    ]
    for (const [template, expected] of cases) expect(renderErrorTemplate(template, vars)).toEqual({ ok: true, text: expected })
  })

  it('renders the same template twice from its cached parse', () => {
    const vars = feedbackTemplateVars(schemaFailure, { attempt: 2, previousOutput: 'x' })
    const first = renderErrorTemplate('n={{ errors | length }} a={{ attempt }}', vars)
    expect(first).toEqual({ ok: true, text: 'n=2 a=3' })
    expect(renderErrorTemplate('n={{ errors | length }} a={{ attempt }}', { ...vars, attempt: 4 })).toEqual({ ok: true, text: 'n=2 a=4' })
  })
  it("has pyconveyor's truncate filter: the length in characters (max_feedback_tokens by default), then the marker on its own line", () => {
    const vars = { ...feedbackTemplateVars(parseFailure, { attempt: 1, previousOutput: 'abcdefghijklmnop', maxFeedbackTokens: 5 }) }
    const render = (template: string, overrides = {}) => renderErrorTemplate(template, { ...vars, ...overrides })
    // Each expected text is what pyconveyor's filter (text[:n] + "\n[…truncated for length…]") renders.
    expect(render('{{ previous_output | truncate(max_feedback_tokens) }}')).toEqual({ ok: true, text: `abcde\n${TRUNCATION_MARKER}` })
    expect(render('{{ previous_output | truncate }}')).toEqual({ ok: true, text: `abcde\n${TRUNCATION_MARKER}` })
    expect(render('{{ previous_output | truncate(3) }}|{{ previous_output | truncate(length=2) }}')).toEqual({
      ok: true,
      text: `abc\n${TRUNCATION_MARKER}|ab\n${TRUNCATION_MARKER}`,
    })
    expect(render('{{ previous_output | truncate(16) }}')).toEqual({ ok: true, text: 'abcdefghijklmnop' })
    expect(render('<{{ previous_output | truncate(0) }}>')).toEqual({ ok: true, text: `<\n${TRUNCATION_MARKER}>` })
    // No token cap configured (0): without a length nothing is cut.
    expect(render('{{ previous_output | truncate }}', { max_feedback_tokens: 0 })).toEqual({ ok: true, text: 'abcdefghijklmnop' })
    expect(render('{{ "😀😀" | truncate(3) }}')).toEqual({ ok: true, text: `😀\n${TRUNCATION_MARKER}` })
  })

  it("treats an undefined variable or attribute as an error, as pyconveyor's Jinja2 StrictUndefined does", () => {
    const vars = feedbackTemplateVars(schemaFailure, { attempt: 1, previousOutput: 'p' })
    // Each verdict is Python's Jinja2 3.1 with undefined=StrictUndefined.
    for (const template of [
      'A{{ nope }}B',
      '{% if nope %}x{% endif %}',
      '{% for e in errors %}{{ e.lco_str }}{% endfor %}',
      '{% for e in erorrs %}x{% endfor %}',
      '{{ previous_outptu | truncate(3) }}',
      '{{ errors[3] }}',
    ]) {
      const verdict = renderErrorTemplate(template, vars)
      expect(verdict.ok, template).toBe(false)
      expect(String((verdict as { error: unknown }).error), template).toMatch(/is undefined/)
    }
    const rendered: [string, string][] = [
      ['{% if nope is defined %}x{% else %}y{% endif %}', 'y'],
      ['{% if nope is not defined %}u{% endif %}', 'u'],
      ["{{ nope | default('d') }}", 'd'],
      ["{% for e in errors %}{{ e.loc_str }}{{ e.hint | default('-') }} {% endfor %}", 'entries[0].evidence- entries[0].score- '],
      ['{% if retry_hint %}h{% endif %}{{ previous_output | upper }}', 'P'],
    ]
    for (const [template, text] of rendered) expect(renderErrorTemplate(template, vars)).toEqual({ ok: true, text })
  })

  it('falls back to the built-in feedback for a misspelt variable, reporting it', () => {
    const ctx = context({ errorTemplate: 'You said: {{ previous_outptu }}\nFix it.' })
    expect(buildValidationFeedback(schemaFailure, ctx)).toMatch(/^Your previous response failed schema validation\./)
    expect(ctx.templateErrors).toHaveLength(1)
    expect(String(ctx.templateErrors[0])).toContain("'previous_outptu' is undefined")
  })

  it('reports a truncate the filter cannot do instead of guessing', () => {
    const vars = feedbackTemplateVars(schemaFailure, { attempt: 1, previousOutput: 'abc', maxFeedbackTokens: 5 })
    for (const template of [
      '{{ previous_output | truncate(-1) }}',
      '{{ previous_output | truncate(2, true) }}',
      '{{ previous_output | truncate(end="") }}',
      '{{ errors | truncate(1) }}',
      '{{ previous_output | truncate("2") }}',
    ]) {
      expect(renderErrorTemplate(template, vars).ok, template).toBe(false)
    }
  })
})

describe('echoPreviousOutput', () => {
  it('cuts the echo to maxFeedbackTokens real tokens with the marker', () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ')
    const echo = echoPreviousOutput(long, { maxFeedbackChars: 100_000, maxFeedbackTokens: 50 })
    expect(echo.endsWith(`\n${TRUNCATION_MARKER}`)).toBe(true)
    // The marker counts towards the bound.
    expect(countFeedbackTokens(echo)).toBeLessThanOrEqual(50)
    const body = echo.slice(0, -TRUNCATION_MARKER.length - 1)
    expect(countFeedbackTokens(body)).toBeGreaterThanOrEqual(50 - countFeedbackTokens(`\n${TRUNCATION_MARKER}`) - 3)
    expect(long.startsWith(body)).toBe(true)
  })

  it('leaves an echo within both limits unchanged', () => {
    expect(echoPreviousOutput('{"a": 1}', { maxFeedbackChars: 100, maxFeedbackTokens: 100 })).toBe('{"a": 1}')
  })

  it('applies the character cap too', () => {
    expect(truncateEcho('abcdefghij'.repeat(10), { maxChars: 30, maxTokens: 1000 })).toBe(`abcde\n${TRUNCATION_MARKER}`)
  })
})

describe('cutToTokens', () => {
  it('treats special-token text as ordinary text', () => {
    expect(countFeedbackTokens('<|endoftext|>')).toBeGreaterThan(1)
  })

  it('never leaves half a character at the cut', () => {
    const { text, cut } = cutToTokens('😀😀😀😀😀😀', 3)
    expect(cut).toBe(true)
    expect(text).not.toContain('\uFFFD')
    expect('😀😀😀😀😀😀'.startsWith(text)).toBe(true)
  })
})
