import type { ModelResponse } from '../model/response.ts'

/**
 * `response` with an id of the library's own on each tool call whose id is not a non-empty string
 * (an OpenAI-compatible stream that sent none, a provider answering a number or nothing):
 * `call_<runId>_t<turn>_<n>`, the same on every replay of the run. Without it a call ran and its
 * exchange could not be stored (a stored call's id is a non-empty string), nor its approval resumed.
 * The response itself when every id is one.
 */
export function withCallIds(response: ModelResponse, runId: string, turn: number): ModelResponse {
  const calls = response.toolCalls
  if (calls.every((c) => typeof c.id === 'string' && c.id !== '')) return response
  const run = runId.replace(/[^\w-]/g, '_').slice(0, 64)
  const toolCalls = calls.map((c, i) => (typeof c.id === 'string' && c.id !== '' ? c : { ...c, id: `call_${run}_t${turn}_${i + 1}` }))
  return { ...response, toolCalls }
}
