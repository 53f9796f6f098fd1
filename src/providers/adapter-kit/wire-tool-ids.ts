// What every provider API accepts as a tool call id (Anthropic's Messages API accepts no other).
const WIRE_ID = /^[A-Za-z0-9_-]+$/
const NOT_WIRE = /[^A-Za-z0-9_-]/g

/**
 * The tool call ids of one request body, as every provider API takes them: each call's id unique in
 * the body and made of letters, digits, `_` and `-` only. A conversation can hold others (a model that
 * repeated `call_0` in one turn, ids from another provider or a run id of the caller's, with `:` or `.`),
 * which Anthropic's API refuses with a 400 on every later request, and a repeated id leaves an API
 * unable to tell which call a result answers. An id that is already fit is sent as it is;
 * another gets its unfit characters written `_` and, when that id is taken, a suffix `_2`, `_3`, ... .
 * Each tool result takes the wire id of the first call of its id not yet answered, so the n-th result
 * of a repeated id answers the n-th call, as the agent settles them. The same conversation always
 * gets the same ids (the prompt cache reads them).
 */
export class WireToolIds {
  readonly #taken = new Set<string>()
  readonly #unanswered = new Map<string, string[]>()

  /** The wire id of the call `id` (a `tool_use` block, a `tool_calls` entry, a `tool-call` part). */
  use(id: string): string {
    let wire = wireFit(id)
    if (this.#taken.has(wire)) {
      const stem = wire
      for (let n = 2; this.#taken.has(wire); n++) wire = `${stem}_${n}`
    }
    this.#taken.add(wire)
    const queue = this.#unanswered.get(id)
    if (queue === undefined) this.#unanswered.set(id, [wire])
    else queue.push(wire)
    return wire
  }

  /** The wire id a tool result for the call `id` names. */
  answer(id: string): string {
    return this.#unanswered.get(id)?.shift() ?? wireFit(id)
  }
}

function wireFit(id: string): string {
  if (WIRE_ID.test(id)) return id
  return id === '' ? 'call' : id.replace(NOT_WIRE, '_')
}
