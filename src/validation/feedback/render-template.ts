import { parse, tokenize } from '@huggingface/jinja'
import type { ErrorTemplate, FeedbackTemplateVars } from './error-template.ts'
import { type JinjaProgram, renderJinja2 } from './render-jinja2.ts'

/** The verdict of {@link renderErrorTemplate}: the feedback text, or why the template failed. */
export type TemplateRender = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: unknown }

// Parsing a Jinja template costs more than rendering it; a config holds one or two templates.
const MAX_CACHED = 32
const compiled = new Map<string, JinjaProgram>()

/**
 * Renders a feedback template: a function of the variables, or a Jinja-style string rendered by
 * `@huggingface/jinja` with the whitespace rules of pyconveyor's Jinja2 environment (`trim_blocks`,
 * `lstrip_blocks`) and its `truncate` filter (see `renderJinja2`), so pyconveyor's templates,
 * its built-in ones included, render unchanged. Never throws: a template that
 * throws, fails to parse, or renders something other than a non-blank string is reported as
 * `{ ok: false, error }` and the caller falls back to the built-in feedback.
 *
 * @example
 * renderErrorTemplate('Attempt {{ attempt }}:{% for e in errors %}\n- {{ e.loc_str }}: {{ e.msg }}{% endfor %}', vars)
 */
export function renderErrorTemplate(template: ErrorTemplate, vars: FeedbackTemplateVars): TemplateRender {
  try {
    const text: unknown = typeof template === 'function' ? template(vars) : renderJinja2(jinja(template), toJinjaValues(vars), vars.max_feedback_tokens)
    if (typeof text !== 'string') return { ok: false, error: new TypeError(`the error template returned ${typeof text}, expected a string`) }
    if (text.trim() === '') return { ok: false, error: new TypeError('the error template rendered empty feedback') }
    return { ok: true, text }
  } catch (error) {
    return { ok: false, error }
  }
}

/**
 * A template parsed as pyconveyor's Jinja2 environment lexes it: `trim_blocks` (the newline after a
 * block or comment tag is dropped), `lstrip_blocks` (spaces and tabs before a block or comment tag
 * at the start of a line are dropped), newlines normalised to `\n`, and one trailing newline of the
 * source dropped (`keep_trailing_newline=False`), so a template file ending in a newline renders
 * as Jinja2 renders it.
 */
function jinja(source: string): JinjaProgram {
  let program = compiled.get(source)
  if (program === undefined) {
    program = parse(tokenize(source.replace(/\r\n?/g, '\n'), { trim_blocks: true, lstrip_blocks: true }))
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string)
    compiled.set(source, program)
  }
  return program
}

// The Jinja runtime walks plain objects and arrays; readonly views are copied once per render.
function toJinjaValues(vars: FeedbackTemplateVars): Record<string, unknown> {
  return { ...vars, errors: vars.errors.map((e) => ({ ...e })) }
}
