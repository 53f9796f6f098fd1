/**
 * Why a value cannot be the request (and options) of `gate.run` or `gate.stream`, as the message of
 * the `TypeError` they answer with; `undefined` when it can. Checks the shape only (an object with a
 * `messages` array), never the messages one by one: a history may hold thousands.
 */
export function requestProblem(request: unknown, options: unknown): string | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return `request must be an object with a \`messages\` array, got ${kindOf(request)}`
  }
  const messages = (request as { readonly messages?: unknown }).messages
  if (!Array.isArray(messages)) return `request.messages must be an array of messages, got ${kindOf(messages)}`
  if (options !== undefined && (typeof options !== 'object' || options === null)) return `options must be an object, got ${kindOf(options)}`
  return undefined
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}
