/**
 * A tool call's id as the wire gave it, or a fresh one (`call_` and a random UUID) when it gave
 * none: a missing, `null`, empty or non-string id (an OpenAI-compatible server that leaves it out)
 * would otherwise reach the agent, which answers the call under that id and whose session store
 * refuses a call without one, after the tool ran. The AI SDK's own adapters do the same.
 *
 * @example
 * toolCallId('call_abc') // 'call_abc'
 * toolCallId(undefined)  // 'call_4b0d…'
 */
export function toolCallId(id: unknown): string {
  return typeof id === 'string' && id !== '' ? id : `call_${globalThis.crypto.randomUUID()}`
}
