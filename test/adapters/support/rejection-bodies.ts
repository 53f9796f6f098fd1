import type { Reply } from './loopback-server.ts'

/*
 * The providers' error bodies for a request they refuse as written, as their APIs send them:
 * OpenAI's documented error object (`message`, `type`, `param`, `code`) and Anthropic's
 * `{ type: 'error', error: { type, message } }` (docs.anthropic.com/en/api/errors).
 */

/** OpenAI 400 `context_length_exceeded`. */
export const OPENAI_CONTEXT_OVERFLOW = {
  error: {
    message:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
}
/** OpenAI 400 `unsupported_parameter` (a reasoning model asked for `max_tokens`). */
export const OPENAI_UNSUPPORTED_PARAMETER = {
  error: {
    message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    type: 'invalid_request_error',
    param: 'max_tokens',
    code: 'unsupported_parameter',
  },
}
/** OpenAI 400 `unsupported_value`. */
export const OPENAI_UNSUPPORTED_VALUE = {
  error: {
    message: "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
    type: 'invalid_request_error',
    param: 'temperature',
    code: 'unsupported_value',
  },
}
/** OpenAI 400 for a strict `json_schema` it refuses (no code; `param` names `response_format`). */
export const OPENAI_SCHEMA_REJECTED = {
  error: {
    message:
      "Invalid schema for response_format 'Answer': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'note'.",
    type: 'invalid_request_error',
    param: 'response_format',
    code: null,
  },
}
/** Anthropic 400 for a prompt above the window. */
export const ANTHROPIC_CONTEXT_OVERFLOW = {
  type: 'error',
  error: { type: 'invalid_request_error', message: 'prompt is too long: 215034 tokens > 200000 maximum' },
}
/** Anthropic 400 for input plus `max_tokens` above the window. */
export const ANTHROPIC_INPUT_AND_MAX_TOKENS = {
  type: 'error',
  error: {
    type: 'invalid_request_error',
    message: 'input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
  },
}
/** Anthropic 413 `request_too_large`. */
export const ANTHROPIC_TOO_LARGE = {
  type: 'error',
  error: {
    type: 'request_too_large',
    message: 'Request exceeds the maximum allowed number of bytes. The maximum request size is 32 MB for standard API endpoints.',
  },
}
/** Anthropic 400 for a structured-output schema it refuses. */
export const ANTHROPIC_SCHEMA_REJECTED = {
  type: 'error',
  error: { type: 'invalid_request_error', message: "output_format.schema: 'minLength' is not supported for type 'string'" },
}
/** Anthropic 400 for a field the API does not take. */
export const ANTHROPIC_UNSUPPORTED = {
  type: 'error',
  error: { type: 'invalid_request_error', message: 'top_k: Extra inputs are not permitted' },
}

/** A JSON reply of `body` with `status`. */
export function rejection(status: number, body: unknown): Reply {
  return { kind: 'json', status, body }
}

/** The HTML page an edge proxy answers a body too large with. */
export const PROXY_413: Reply = {
  kind: 'raw',
  status: 413,
  contentType: 'text/html',
  body: '<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center></body></html>',
}
