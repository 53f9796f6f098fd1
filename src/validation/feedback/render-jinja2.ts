import { Environment, Interpreter, type parse } from '@huggingface/jinja'
import { cutAt } from '../schema/received.ts'
import { TRUNCATION_MARKER } from './truncate-for-feedback.ts'

/** A parsed template, as `@huggingface/jinja`'s `parse` returns it. */
export type JinjaProgram = ReturnType<typeof parse>

type Node = NonNullable<Parameters<Interpreter['evaluate']>[0]>
type Value = ReturnType<Interpreter['evaluate']>
// The few node shapes read here (the library's AST classes are not exported).
interface NamedNode {
  readonly type: string
  readonly value?: unknown
}
interface FilterNode {
  readonly operand: Node
  readonly filter: NamedNode & { readonly callee?: NamedNode; readonly args?: readonly (Node & { readonly key?: NamedNode; readonly value?: Node })[] }
}

/**
 * Renders a parsed template with pyconveyor's Jinja2 environment semantics on top of
 * `@huggingface/jinja`:
 * - `StrictUndefined`: a variable or attribute that is not defined (`{{ previous_outptu }}`,
 *   `{{ e.lco_str }}`, `{% if retryhint %}`) is an error, never an empty string or false; `is defined`
 *   and the `default` filter still see it;
 * - pyconveyor's `truncate` filter, `truncate(length)`: a string longer than `length` characters is
 *   cut to `length` characters followed by a line `[…truncated for length…]`; without a length it
 *   cuts to `defaultLength` (the template's `max_feedback_tokens`; unchanged when that is 0, no cap).
 *
 * Throws what the template got wrong; the caller turns it into a `template_error`.
 */
export function renderJinja2(program: JinjaProgram, vars: Readonly<Record<string, unknown>>, defaultLength: number): string {
  const env = new Environment()
  for (const [name, value] of Object.entries(GLOBALS)) env.set(name, value)
  for (const [name, value] of Object.entries(vars)) env.set(name, value)
  const rendered = new Jinja2Interpreter(env, defaultLength).run(program)
  return String(rendered.value)
}

// The globals `@huggingface/jinja` sets up for its own templates (its setup function is not exported).
const GLOBALS: Readonly<Record<string, unknown>> = {
  true: true,
  false: false,
  none: null,
  True: true,
  False: false,
  None: null,
  range,
  raise_exception: (message: unknown) => {
    throw new Error(String(message))
  },
}

function range(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop]
  if (![from, to, step].every(Number.isSafeInteger)) throw new TypeError('range() takes integers')
  if (step === 0) throw new RangeError('range() step must not be zero')
  const out: number[] = []
  for (let i = from; step > 0 ? i < to : i > to; i += step) {
    out.push(i)
    if (out.length > 100_000) throw new RangeError('range() is limited to 100000 items in a feedback template')
  }
  return out
}

class Jinja2Interpreter extends Interpreter {
  // Inside `x is defined` or `x | default(...)` an undefined value is allowed, as with Jinja2's StrictUndefined.
  #lenient = 0
  readonly #defaultLength: number

  constructor(env: Environment, defaultLength: number) {
    super(env)
    this.#defaultLength = defaultLength
  }

  override evaluate(node: Node | undefined, environment: Environment): Value {
    if (node === undefined) return super.evaluate(node, environment)
    if (node.type === 'Identifier' || node.type === 'MemberExpression') {
      const value = super.evaluate(node, environment)
      if (value.type === 'UndefinedValue' && this.#lenient === 0) throw new ReferenceError(`'${nameOf(node)}' is undefined in the error template`)
      return value
    }
    if (node.type === 'TestExpression') return this.#leniently(node, environment)
    const filter = node.type === 'FilterExpression' ? (node as unknown as FilterNode) : undefined
    const name = filter === undefined ? undefined : filterName(filter)
    if (name === 'default') return this.#leniently(node, environment)
    if (filter !== undefined && name === 'truncate') return this.#truncate(filter, environment)
    return super.evaluate(node, environment)
  }

  #leniently(node: Node, environment: Environment): Value {
    this.#lenient++
    try {
      return super.evaluate(node, environment)
    } finally {
      this.#lenient--
    }
  }

  #truncate(node: FilterNode, environment: Environment): Value {
    const operand = this.evaluate(node.operand, environment)
    if (operand.type !== 'StringValue') throw new TypeError(`truncate expects a string, got ${operand.type}`)
    const text = operand.value as string
    const args = node.filter.args ?? []
    if (args.length > 1) throw new TypeError('truncate takes one argument, the length')
    const arg = args[0]
    let length = this.#defaultLength
    if (arg !== undefined) {
      const keyword = arg.type === 'KeywordArgumentExpression'
      if (keyword && arg.key?.value !== 'length') throw new TypeError(`truncate has no argument ${String(arg.key?.value)}`)
      const given = this.evaluate(keyword ? (arg.value as Node) : arg, environment)
      if (given.type !== 'IntegerValue' || (given.value as number) < 0) throw new TypeError('truncate: the length is a whole number of characters, at least 0')
      length = given.value as number
    } else if (length === 0) return operand
    return stringValue(text.length <= length ? text : `${cutAt(text, length)}\n${TRUNCATION_MARKER}`)
  }
}

function filterName(node: FilterNode): string | undefined {
  const filter = node.filter
  if (filter.type === 'Identifier') return String(filter.value)
  if (filter.type === 'CallExpression' && filter.callee?.type === 'Identifier') return String(filter.callee.value)
  return undefined
}

function nameOf(node: Node): string {
  const named = node as unknown as NamedNode & { readonly object?: Node; readonly property?: NamedNode; readonly computed?: boolean }
  if (named.type === 'Identifier') return String(named.value)
  if (named.object !== undefined && named.property?.type === 'Identifier' && named.computed !== true)
    return `${nameOf(named.object)}.${String(named.property.value)}`
  if (named.object !== undefined) return `${nameOf(named.object)}[…]`
  return 'a value'
}

// The library's value classes are not exported: a fresh environment converts a string for us.
function stringValue(text: string): Value {
  return new Environment().set('text', text)
}
