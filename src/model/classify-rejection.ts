import type { ErrorKind } from './error-kind.ts'

/** The kinds of a request the provider refused as written: re-sending it unchanged cannot succeed. */
export type RejectionKind = 'context-overflow' | 'schema-rejected' | 'unsupported-parameter' | 'payload-too-large'

/** Every {@link RejectionKind}. */
export const REJECTION_KINDS: readonly RejectionKind[] = Object.freeze(['context-overflow', 'schema-rejected', 'unsupported-parameter', 'payload-too-large'])

const REJECTION = new Set<ErrorKind>(REJECTION_KINDS)

/** True for a kind of {@link REJECTION_KINDS}: the provider refused the request itself. */
export function isRejectionKind(kind: ErrorKind): kind is RejectionKind {
  return REJECTION.has(kind)
}

/** Error codes of provider bodies that say which part of the request was refused. */
const CODES: Readonly<Record<string, RejectionKind>> = {
  // OpenAI's documented error code for input + max_tokens above the model's window (param "messages").
  context_length_exceeded: 'context-overflow',
  // OpenAI's documented error codes for a parameter or value the model does not take (param names it).
  unsupported_parameter: 'unsupported-parameter',
  unsupported_value: 'unsupported-parameter',
  // Anthropic's documented 413 error type (also what a proxy in front of OpenAI says in its body).
  request_too_large: 'payload-too-large',
  // OpenAI's error code for one string of the body above its size limit ("string too long").
  string_above_max_length: 'payload-too-large',
}

/** Body params of OpenAI's `invalid_request_error` that name the structured-output schema. */
const SCHEMA_PARAMS = /^(response_format|text\.format|output_format|output_config)/
/** Longest message the patterns read: a huge body is read by its start, where providers say what went wrong. */
const MAX_MESSAGE = 4_000

// Message patterns, read last (codes first): each quotes the provider's own documented wording.
const PATTERNS: readonly (readonly [RegExp, RejectionKind])[] = [
  // OpenAI "Invalid schema for response_format 'x': ..."; Anthropic's structured outputs name
  // `output_format` / `output_config.format` in an invalid_request_error about the schema, or start
  // with that field's path when the field itself is refused ("output_config.format: Extra inputs are
  // not permitted", from an API or a model without structured outputs).
  [
    /invalid schema for (response_format|function)|(response_format|json_schema|output_format|output_config)\b[^\n]{0,200}\bschema|schema[^\n]{0,80}\b(not supported|unsupported)|\b(output_config\.format|output_format)(\.[\w.]+)?: /,
    'schema-rejected',
  ],
  // OpenAI "This model's maximum context length is N tokens"; Anthropic "prompt is too long: N tokens
  // > M maximum" and "input length and `max_tokens` exceed context limit"; Gemini "input token count
  // (N) exceeds the maximum number of tokens allowed".
  [
    /maximum context length|prompt is too long|exceeds? (the )?context (limit|window|length)|context (length|window) (exceeded|is exceeded)|input token count[^\n]{0,40}exceeds the maximum/,
    'context-overflow',
  ],
  // Anthropic 413 "Request exceeds the maximum allowed number of bytes"; a proxy's 413 page.
  [/request exceeds the maximum allowed number of bytes|request entity too large|payload too large|request too large/, 'payload-too-large'],
  // OpenAI "Unsupported parameter: 'max_tokens' ..." / "Unsupported value: ..." (and Azure OpenAI's
  // "Unrecognized request argument supplied: x"); Anthropic "x: Extra inputs are not permitted" for a
  // field the API does not take.
  // A `max_tokens` above the model's output limit: Anthropic "max_tokens: N > M, which is the maximum
  // allowed number of output tokens", OpenAI "max_tokens is too large: N. This model supports at most M".
  [
    /unsupported (parameter|value)|unrecognized request argument|extra inputs are not permitted|is not supported with this model|which is the maximum allowed number of output tokens|max_(completion_)?tokens is too large/,
    'unsupported-parameter',
  ],
]

/**
 * The rejection an error body's codes say (`code`, `error.code`, `error.error.code`, the body
 * `type`s, and a `response_format` param of an `invalid_request_error`), `undefined` when they
 * say none. Codes only: see {@link rejectionOfMessage} for the wording.
 */
export function rejectionOfCodes(e: Record<string, unknown>): RejectionKind | undefined {
  const body = record(e['error'] ?? e['data'])
  const inner = record(body?.['error'])
  // The structured-output field named as the refused part is the schema refused, whatever the code (a
  // model without structured outputs answers `unsupported_parameter` with `param: response_format`):
  // the remedy is the gate's demotion to a lower output mode.
  for (const p of [e['param'], body?.['param'], inner?.['param']]) {
    if (typeof p === 'string' && SCHEMA_PARAMS.test(p)) return 'schema-rejected'
  }
  for (const c of [e['code'], body?.['code'], inner?.['code'], inner?.['type'], body?.['type'], e['type']]) {
    if (typeof c === 'string' && Object.hasOwn(CODES, c)) return CODES[c]
  }
  return undefined
}

/**
 * The rejection the error's message says in the providers' documented wording (the SDK's message,
 * then the body's own), `undefined` when it says none. Reads at most the first 4,000 characters.
 */
export function rejectionOfMessage(e: Record<string, unknown>): RejectionKind | undefined {
  const body = record(e['error'] ?? e['data'])
  const inner = record(body?.['error'])
  for (const m of [e['message'], inner?.['message'], body?.['message'], e['responseBody']]) {
    if (typeof m !== 'string' || m === '') continue
    const text = m.slice(0, MAX_MESSAGE).toLowerCase()
    for (const [pattern, kind] of PATTERNS) if (pattern.test(text)) return kind
  }
  return undefined
}

/**
 * Whether the error says the request itself was invalid: status 400, 404, 413 or 422, or a body
 * `type` `invalid_request_error`. Then the rejection wording is read before the transport patterns
 * (an "Unsupported parameter: 'timeout'" is no timeout).
 */
export function saysInvalidRequest(e: Record<string, unknown>, status: number | undefined): boolean {
  if (status === 400 || status === 404 || status === 413 || status === 422) return true
  const body = record(e['error'] ?? e['data'])
  const types = [record(body?.['error'])?.['type'], body?.['type'], e['type']]
  return types.includes('invalid_request_error')
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined
}
