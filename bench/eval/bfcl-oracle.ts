import { compileSchema, type CompiledSchema, type JsonSchemaObject } from '../../src/validation/index.ts'
import { bfclToJsonSchema } from './bfcl-schema.ts'

/** A BFCL function document (v1 dataset and result archive). */
export interface BfclFunction {
  readonly name: string
  readonly parameters: Record<string, unknown>
}

/** One normalised call: a known function name and its arguments. */
export interface Call {
  readonly name: string
  readonly args: Record<string, unknown>
}

/** Function names compare with dots as underscores: several models' outputs rename them so. */
export const normName = (name: string): string => name.replace(/\./g, '_')

/**
 * The output schema of one BFCL question, as a `{ parse }` object: the answer must hold one or more
 * calls (in any of the shapes models use) of the question's functions with arguments valid for that
 * function's schema. Returns the calls.
 */
export function callSchema(functions: readonly BfclFunction[]): { parse(value: unknown): Call[] } {
  const byName = new Map<string, CompiledSchema>()
  for (const f of functions) byName.set(normName(f.name), compileSchema(bfclToJsonSchema(f.parameters, false) as JsonSchemaObject))
  const check = (call: Call): Call => {
    const schema = byName.get(normName(call.name))
    if (schema === undefined) throw new Error(`unknown function ${call.name}`)
    const verdict = schema.validate(call.args)
    if (verdict instanceof Promise || !verdict.ok) throw new Error(`invalid arguments for ${call.name}`)
    return call
  }
  const bare = (args: Record<string, unknown>): Call => {
    const fits = [...byName.keys()].filter((name) => {
      try {
        check({ name, args })
        return true
      } catch {
        return false
      }
    })
    if (fits.length !== 1) throw new Error('not a call')
    return { name: fits[0] as string, args }
  }
  const calls = (value: unknown): Call[] => {
    // `('f', {...})`, a Python tuple of a name and its arguments, is a two-item array; models also run
    // several such pairs into one tuple or list (`('f', {...}, 'g', {...})`): a name then its arguments.
    if (Array.isArray(value)) {
      const found: Call[] = []
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i]
        const next: unknown = value[i + 1]
        if (typeof item === 'string' && isRecord(next)) {
          found.push(check({ name: item, args: next }))
          i++
        } else found.push(...calls(item))
      }
      return found
    }
    if (!isRecord(value)) throw new Error('not a call')
    if (Array.isArray(value.tool_calls)) return value.tool_calls.flatMap(calls)
    if (isRecord(value.function) && typeof value.function.name === 'string') return calls(value.function)
    const name = [value.name, value.function, value.function_name].find((n) => typeof n === 'string') as string | undefined
    if (name !== undefined) {
      let args: unknown = value.arguments ?? value.parameters ?? value.args ?? {}
      if (typeof args === 'string') args = JSON.parse(args) as unknown
      if (!isRecord(args)) throw new Error('arguments are not an object')
      return [check({ name, args })]
    }
    const keys = Object.keys(value)
    if (keys.length === 1 && byName.has(normName(keys[0] as string)) && isRecord(value[keys[0] as string])) {
      return [check({ name: keys[0] as string, args: value[keys[0] as string] as Record<string, unknown> })]
    }
    return [bare(value)]
  }
  return {
    parse(value) {
      const found = calls(value)
      if (found.length === 0) throw new Error('no call')
      return found
    },
  }
}

/** BFCL's string standardisation: case, spaces and `,./-_*^` do not count. */
function standardize(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, '')
    .toLowerCase()
    .replace(/'/g, '"')
}

function matches(value: unknown, accepted: unknown): boolean {
  if (typeof accepted === 'string') return typeof value === 'string' && standardize(value) === standardize(accepted)
  if (typeof accepted === 'number') return typeof value === 'number' && value === accepted
  if (Array.isArray(accepted)) return Array.isArray(value) && value.length === accepted.length && value.every((v, i) => matches(v, accepted[i]))
  if (isRecord(accepted)) {
    if (!isRecord(value)) return false
    for (const [k, a] of Object.entries(accepted)) {
      const options = Array.isArray(a) ? a : [a]
      if (!(k in value)) {
        if (!options.includes('')) return false
      } else if (!options.some((o) => o !== '' && matches(value[k], o)) && !matches(value[k], a)) return false
    }
    return Object.keys(value).every((k) => k in accepted)
  }
  return value === accepted
}

function matchesCall(call: Call, name: string, params: Record<string, unknown[]>): boolean {
  if (normName(call.name) !== normName(name)) return false
  for (const [param, accepted] of Object.entries(params)) {
    if (!(param in call.args)) {
      if (!accepted.includes('')) return false
    } else if (!accepted.some((a) => a !== '' && matches(call.args[param], a))) return false
  }
  return Object.keys(call.args).every((k) => k in params)
}

/**
 * BFCL's AST check, simplified: the calls match the ground truth one to one, in any order; each
 * parameter holds one of its accepted values (`""` = may be left out); no unexpected parameter.
 */
export function matchesGroundTruth(
  calls: readonly Call[],
  groundTruth: Record<string, Record<string, unknown[]>>,
  functions: readonly BfclFunction[],
): boolean {
  const known = new Set(functions.map((f) => normName(f.name)))
  const expected = Object.entries(groundTruth).map(([key, params]) => {
    const stripped = key.replace(/[ _]\d+$/, '')
    return { name: known.has(normName(key)) ? key : stripped, params }
  })
  if (expected.length !== calls.length) return false
  const used = new Set<number>()
  const assign = (i: number): boolean => {
    if (i === expected.length) return true
    const e = expected[i] as { name: string; params: Record<string, unknown[]> }
    for (let j = 0; j < calls.length; j++) {
      if (used.has(j) || !matchesCall(calls[j] as Call, e.name, e.params)) continue
      used.add(j)
      if (assign(i + 1)) return true
      used.delete(j)
    }
    return false
  }
  return assign(0)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * How many calls the raw text holds as data, read independently of the library's extraction: each
 * known function name written as a quoted value or key (`"name": "f"`, `{"f": {...}}`,
 * `('f', {...})`: the quoted name followed by `,` `:` `}` `]` or `)`). Names compare with dots as
 * underscores, as everywhere here. Prose that quotes a name (`use 'f' to ...`) and Python call
 * syntax (`f(x=1)`, which is code, not a JSON value) do not count.
 */
export function callsWritten(raw: string, functions: readonly BfclFunction[]): number {
  const names = new Set(functions.flatMap((f) => [f.name, normName(f.name)]))
  let count = 0
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    count += raw.match(new RegExp(`["']${escaped}["']\\s*[,:}\\])]`, 'g'))?.length ?? 0
  }
  return count
}

/**
 * Whether every function name and every string and number of `calls` appears in the raw text: the
 * repair only fixed syntax. A call that is not faithful holds content the model never wrote.
 */
export function faithfulTo(raw: string, calls: readonly Call[]): boolean {
  const flat = raw.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/\\(["'\\])/g, '$1')
  const numbers = new Set((flat.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []).map(Number))
  const leaves: unknown[] = []
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk)
    else if (isRecord(v)) {
      for (const [k, x] of Object.entries(v)) {
        leaves.push(k)
        walk(x)
      }
    } else leaves.push(v)
  }
  for (const call of calls) walk(call.args)
  const normalised = normName(flat)
  const namesOk = calls.every((c) => flat.includes(c.name) || normalised.includes(normName(c.name)))
  return namesOk && leaves.every((leaf) => (typeof leaf === 'string' ? flat.includes(leaf) : typeof leaf === 'number' ? numbers.has(leaf) : true))
}
