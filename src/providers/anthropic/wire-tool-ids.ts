// What the Messages API accepts as a tool_use id (and a tool_result's tool_use_id).
const WIRE_ID = /^[A-Za-z0-9_-]+$/
const NOT_WIRE = /[^A-Za-z0-9_-]/g

/**
 * The tool call ids of one Messages API body, as the API takes them: every `tool_use` id unique in the
 * body and made of letters, digits, `_` and `-` only. A conversation can hold others (a model that
 * repeated `call_0` in one turn, ids from another provider or a run id of the caller's, with `:` or `.`),
 * which the API refuses with a 400 on every later request. An id that is already fit is sent as it is;
 * another gets its unfit characters written `_` and, when that id is taken, a suffix `_2`, `_3`, ... .
 * Each tool result takes the wire id of the first call of its id not yet answered, so the n-th result
 * of a repeated id answers the n-th call, as the agent settles them. The same conversation always
 * gets the same ids (the prompt cache reads them).
 */
export class WireToolIds {
  readonly #taken = new Set<string>()
  readonly #unanswered = new Map<string, string[]>()

  /** The wire id of a `tool_use` block for the call `id`. */
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

  /** The wire `tool_use_id` of a tool result for the call `id`. */
  answer(id: string): string {
    return this.#unanswered.get(id)?.shift() ?? wireFit(id)
  }
}

function wireFit(id: string): string {
  if (WIRE_ID.test(id)) return id
  return id === '' ? 'call' : id.replace(NOT_WIRE, '_')
}
