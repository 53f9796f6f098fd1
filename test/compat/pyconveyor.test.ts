import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, isStepConfigError, ProviderError, strictOutput } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const Refund = Type.Object({ amount: Type.Number(), currency: Type.String() })
const request = { system: 'Answer in JSON.', messages: [{ role: 'user' as const, content: 'Refund order #42.' }] }
const bad = '{"amount": "USD 50"}'
const good = '{"amount": 50, "currency": "USD"}'

// pyconveyor's documented error template (docs/guides/validation-feedback.md), as a file ending in a newline.
const DOC_TEMPLATE = `{# prompts/retry_feedback.j2 #}
{% if error_type == "schema" %}
PREVIOUS OUTPUT (invalid):
{{ previous_output }}

VALIDATION ERRORS:
{% for error in errors %}
- {{ error.loc_str }}: {{ error.msg }}
{% endfor %}

Return corrected JSON only.
{% elif error_type == "parse" %}
PREVIOUS OUTPUT (not valid JSON):
{{ previous_output }}

Return only a valid JSON object. No prose, no markdown fences.
{% endif %}
`

// pyconveyor's built-in schema-error feedback template (steps/llm_step.py, _DEFAULT_SCHEMA_FEEDBACK).
const SEED_SCHEMA_TEMPLATE = `Your previous response failed schema validation. Here is what you returned:

{{ previous_output | truncate(max_feedback_tokens) }}

Validation errors:
{% for err in errors %}- {{ err.loc_str }}: {{ err.msg }}
{% endfor %}
Please fix these issues and return a corrected JSON object.
{% if retry_hint %}
{{ retry_hint }}
{% endif %}`

function pipelineDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rg-pipeline-'))
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

describe('pyconveyor step config', () => {
  it('retries parse and schema errors but not a timeout by default', async () => {
    const timedOut = scripted([new ProviderError('slow', { kind: 'timeout' }), good])
    const gate = createGate({ providers: timedOut, outputSchema: Refund, ...strictOutput.fromStepConfig({ max_attempts: 3 }) })
    await expect(gate.run(request)).rejects.toMatchObject({ kind: 'timeout' })
    expect(timedOut.calls).toBe(1)

    const invalid = scripted([bad, good])
    const retried = createGate({ providers: invalid, outputSchema: Refund, ...strictOutput.fromStepConfig({ max_attempts: 3 }) })
    expect((await retried.run(request)).value).toEqual({ amount: 50, currency: 'USD' })
  })

  it('retries a timeout when retry_on lists it', async () => {
    const provider = scripted([new ProviderError('slow', { kind: 'timeout' }), good])
    const config = strictOutput.fromStepConfig({ retry_on: ['parse', 'schema', 'timeout'] }, { backoff: () => 0 })
    const result = await createGate({ providers: provider, outputSchema: Refund, ...config }).run(request)
    expect(result.attempts.map((a) => a.ruleKind)).toEqual(['timeout-retry', 'ok'])
  })

  it('names its retry rules in kebab case, mapping the snake_case categories', () => {
    const config = strictOutput({ retryOn: ['parse', 'schema', 'timeout', 'http_error', 'rate_limit'], stuckAfter: 2 })
    expect(config.postDecide?.map((r) => r.kind)).toEqual([
      'schema-stuck-loop',
      'parse-retry',
      'schema-retry',
      'timeout-retry',
      'http-error-retry',
      'rate-limit-retry',
      'schema-retry-exhausted',
    ])
  })

  it('reads error_template from a file relative to baseDir and renders it as Jinja2 with trim_blocks and lstrip_blocks', async () => {
    const dir = pipelineDir({ 'prompts/retry_feedback.j2': DOC_TEMPLATE })
    const provider = scripted([bad, good])
    const config = strictOutput.fromStepConfig({ max_attempts: 3, error_template: 'prompts/retry_feedback.j2' }, { baseDir: dir })
    await createGate({ providers: provider, outputSchema: Refund, ...config }).run(request)
    // What Python's Jinja2 (trim_blocks, lstrip_blocks) renders for these variables.
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe(
      [
        'PREVIOUS OUTPUT (invalid):',
        '{"amount": "USD 50"}',
        '',
        'VALIDATION ERRORS:',
        '- currency: required field is missing — provide a value',
        '- amount: expected number, got "USD 50"',
        '',
        'Return corrected JSON only.',
        '',
      ].join('\n'),
    )
  })

  it("renders pyconveyor's own built-in feedback template, truncate filter included, as Jinja2 does", async () => {
    const provider = scripted([bad, good])
    const config = strictOutput.fromStepConfig({ retry_hint: 'Amounts are plain numbers.', error_template: SEED_SCHEMA_TEMPLATE })
    const gate = createGate({ providers: provider, outputSchema: Refund, ...config })
    const templateErrors: unknown[] = []
    gate.on('template_error', (e) => templateErrors.push(e.error))
    await gate.run(request)
    expect(templateErrors).toEqual([])
    // What Python's Jinja2 3.1 renders in pyconveyor's environment for these variables.
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe(
      'Your previous response failed schema validation. Here is what you returned:\n\n{"amount": "USD 50"}\n\nValidation errors:\n' +
        '- currency: required field is missing — provide a value\n- amount: expected number, got "USD 50"\n' +
        'Please fix these issues and return a corrected JSON object.\nAmounts are plain numbers.\n',
    )
  })

  it("names the location of an error about the value itself '?', as pyconveyor's loc_str does", async () => {
    const provider = scripted(['[50, "USD"]', good])
    const config = strictOutput.fromStepConfig({ error_template: '{% for e in errors %}{{ e.loc_str }}: {{ e.type }}\n{% endfor %}' })
    const result = await createGate({ providers: provider, outputSchema: Refund, ...config }).run(request)
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe('?: invalid_type\n')
    expect(result.attempts[0]?.errors).toEqual([expect.stringMatching(/^\?: expected object, got /)])
  })

  it('reads error_template relative to the working directory without baseDir', () => {
    const dir = mkdtempSync(join(process.cwd(), '.rg-pipeline-'))
    try {
      writeFileSync(join(dir, 'feedback.j2'), 'Attempt {{ attempt }}: fix it.\n')
      const path = relative(process.cwd(), join(dir, 'feedback.j2'))
      expect(strictOutput.fromStepConfig({ error_template: path }).errorTemplate).toBe('Attempt {{ attempt }}: fix it.\n')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('numbers the template attempt as the attempt about to be made', async () => {
    const dir = pipelineDir({ 'feedback.j2': 'Attempt {{ attempt }}: fix {{ errors | length }} field(s).\n' })
    const provider = scripted([bad, '{"amount": "fifty"}', good])
    const config = strictOutput.fromStepConfig({ error_template: 'feedback.j2' }, { baseDir: dir })
    await createGate({ providers: provider, outputSchema: Refund, ...config }).run(request)
    expect(provider.requests.slice(1).map((r) => r.messages.at(-1)?.content)).toEqual(['Attempt 2: fix 2 field(s).', 'Attempt 3: fix 2 field(s).'])
  })

  it('fails with a config error naming a missing template file, before any model call', () => {
    const dir = pipelineDir({})
    let error: unknown
    try {
      strictOutput.fromStepConfig({ error_template: 'prompts/missing.j2' }, { baseDir: dir })
    } catch (e) {
      error = e
    }
    expect(isStepConfigError(error)).toBe(true)
    expect((error as Error).message).toContain('prompts/missing.j2')
    expect((error as Error).message).toContain(join(dir, 'prompts/missing.j2'))
    expect((error as Error).message).toContain('no such file')
  })

  it('keeps an inline template inline', () => {
    const inline = 'Fix: {% for e in errors %}{{ e.loc_str }} {% endfor %}'
    expect(strictOutput.fromStepConfig({ error_template: inline }).errorTemplate).toBe(inline)
  })
})
