import type { JsonSchema } from '../../model/request.ts'
import { createRandom, type Random } from './prng.ts'
import { isAmountKey, isOrderIdKey, type PromptHints } from './prompt-hints.ts'
import { childSchema, kindOf, propertiesOf, requiredOf, resolveSchema, type SchemaNode } from './schema.ts'

/** Options of {@link generateValue}. */
export interface GenerateOptions {
  /** Values taken from the prompt (amount, order id). */
  readonly hints?: PromptHints
  /** The document `$ref`s resolve against, when `schema` is a sub-schema of it. @default schema */
  readonly root?: JsonSchema
}

interface Context {
  readonly root: JsonSchema
  readonly random: Random
  readonly hints: PromptHints
  readonly depth: number
  readonly key: string | undefined
  /** Values still to build in this answer, shared by every level: a schema asking for more gets a short answer. */
  readonly budget: { left: number }
}

const WORDS = ['alpha', 'bravo', 'cedar', 'delta', 'ember', 'falcon', 'granite', 'harbor', 'iris', 'juniper', 'kestrel', 'lumen']
// Past this depth optional properties are skipped and arrays kept at `minItems`, so recursive schemas end.
const SHALLOW_DEPTH = 3
const MAX_DEPTH = 24
// What one answer may hold, whatever `minItems` and `minLength` ask (`minItems: 1e9`, or 1,000 at three
// levels): past it arrays end and strings stop growing, so the answer fails the schema instead of the
// process running out of memory.
const MAX_VALUES = 100_000
const MAX_STRING = 100_000

/**
 * Builds a value that satisfies `schema` (objects, arrays, strings with common formats, numbers with
 * bounds, `enum`, `const`, first `anyOf`/`oneOf` branch, local `$ref`s), the same one for the same seed.
 *
 * @example
 * generateValue({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] }, 7)
 */
export function generateValue(schema: JsonSchema, seed: number, options: GenerateOptions = {}): unknown {
  const root = options.root ?? schema
  const ctx: Context = { root, random: createRandom(seed), hints: options.hints ?? {}, depth: 0, key: undefined, budget: { left: MAX_VALUES } }
  return generate(resolveSchema(schema, root), ctx)
}

function generate(node: SchemaNode, ctx: Context): unknown {
  ctx.budget.left--
  if ('const' in node) return structuredClone(node['const'])
  const choices = node['enum']
  if (Array.isArray(choices) && choices.length > 0) return structuredClone(ctx.random.pick(choices))
  if (ctx.depth > MAX_DEPTH) return null
  switch (kindOf(node)) {
    case 'object':
      return generateObject(node, ctx)
    case 'array':
      return generateArray(node, ctx)
    case 'string':
      return generateString(node, ctx)
    case 'number':
      return generateNumber(node, false, ctx)
    case 'integer':
      return generateNumber(node, true, ctx)
    case 'boolean':
      return ctx.random.next() < 0.5
    case 'null':
      return null
    case 'any':
      return ctx.random.pick(WORDS)
  }
}

function generateObject(node: SchemaNode, ctx: Context): Record<string, unknown> {
  const required = new Set(requiredOf(node))
  const keys = [...new Set([...Object.keys(propertiesOf(node)), ...required])]
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    const include = required.has(key) || (ctx.depth < SHALLOW_DEPTH && ctx.random.next() < 0.6)
    if (!include) continue
    const child = childSchema(node, key, ctx.root) ?? {}
    out[key] = generate(child, { ...ctx, depth: ctx.depth + 1, key })
  }
  return out
}

function generateArray(node: SchemaNode, ctx: Context): unknown[] {
  const prefix = node['prefixItems'] ?? (Array.isArray(node['items']) ? node['items'] : [])
  const prefixLength = Array.isArray(prefix) ? prefix.length : 0
  const min = numberOr(node['minItems'], 0)
  // `items: false` (or `additionalItems: false`) closes a tuple after its prefix.
  const closed = node['items'] === false || node['additionalItems'] === false
  const max = Math.min(numberOr(node['maxItems'], Number.POSITIVE_INFINITY), closed ? prefixLength : Number.POSITIVE_INFINITY)
  const wanted = Math.max(prefixLength, ctx.depth < SHALLOW_DEPTH ? Math.max(min, ctx.random.int(1, 3)) : min)
  const length = Math.min(wanted, max)
  const unique = node['uniqueItems'] === true
  const seen = new Set<string>()
  const out: unknown[] = []
  for (let index = 0; index < length && ctx.budget.left > 0; index++) {
    const child = childSchema(node, index, ctx.root) ?? {}
    // Small enums cannot always yield distinct items; a few tries are enough for realistic schemas.
    for (let attempt = 0; attempt < 8; attempt++) {
      const item = generate(child, { ...ctx, depth: ctx.depth + 1, key: ctx.key })
      const fingerprint = JSON.stringify(item)
      if (unique && seen.has(fingerprint)) continue
      seen.add(fingerprint)
      out.push(item)
      break
    }
  }
  return out
}

function generateString(node: SchemaNode, ctx: Context): string {
  const { random, hints, key } = ctx
  const format = node['format']
  if (typeof format === 'string') {
    const formatted = formattedString(format, random)
    if (formatted !== undefined) return formatted
  }
  let text = `${random.pick(WORDS)} ${random.pick(WORDS)}`
  if (key !== undefined && isOrderIdKey(key) && hints.orderId !== undefined) text = hints.orderId
  const minLength = Math.min(numberOr(node['minLength'], 0), MAX_STRING)
  const maxLength = numberOr(node['maxLength'], Number.POSITIVE_INFINITY)
  while (text.length < minLength) text += ` ${random.pick(WORDS)}`
  text = text.slice(0, maxLength)
  const pattern = node['pattern']
  return typeof pattern === 'string' ? matchPattern(pattern, text, random) : text
}

function formattedString(format: string, random: Random): string | undefined {
  const two = (n: number): string => String(n).padStart(2, '0')
  const date = `2026-${two(random.int(1, 12))}-${two(random.int(1, 28))}`
  const time = `${two(random.int(0, 23))}:${two(random.int(0, 59))}:00`
  const hex = (length: number): string => Array.from({ length }, () => random.int(0, 15).toString(16)).join('')
  switch (format) {
    case 'date-time':
      return `${date}T${time}Z`
    case 'date':
      return date
    case 'time':
      return `${time}Z`
    case 'email':
      return `${random.pick(WORDS)}.${random.int(1, 99)}@example.com`
    case 'uuid':
      return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[random.int(0, 3)]}${hex(3)}-${hex(12)}`
    case 'uri':
    case 'url':
      return `https://example.com/${random.pick(WORDS)}/${random.int(1, 999)}`
    case 'hostname':
      return `${random.pick(WORDS)}.example.com`
    case 'ipv4':
      return `192.0.2.${random.int(1, 254)}`
    case 'ipv6':
      return `2001:db8::${hex(4)}`
    default:
      return undefined
  }
}

/** No general regex inverter here: try a few shapes that match the patterns schemas usually carry. */
function matchPattern(pattern: string, fallback: string, random: Random): string {
  let regex: RegExp
  try {
    regex = new RegExp(pattern, 'u')
  } catch {
    return fallback
  }
  const word = random.pick(WORDS)
  const number = String(random.int(1, 9999))
  const candidates = [fallback, word, number, `${word}-${random.pick(WORDS)}-${number}`, word.toUpperCase(), `${word}_${number}`, `${word}@example.com`]
  return candidates.find((c) => regex.test(c)) ?? fallback
}

function generateNumber(node: SchemaNode, integer: boolean, ctx: Context): number {
  const step = integer ? 1 : 0.01
  let low = typeof node['minimum'] === 'number' ? node['minimum'] : undefined
  let high = typeof node['maximum'] === 'number' ? node['maximum'] : undefined
  if (typeof node['exclusiveMinimum'] === 'number') low = Math.max(low ?? -Infinity, node['exclusiveMinimum'] + step)
  if (typeof node['exclusiveMaximum'] === 'number') high = Math.min(high ?? Infinity, node['exclusiveMaximum'] - step)
  if (low === undefined && high === undefined) [low, high] = [1, 100]
  low ??= (high as number) - 100
  high ??= low + 100
  const hint = ctx.hints.amount
  if (ctx.key !== undefined && isAmountKey(ctx.key) && hint !== undefined && hint >= low && hint <= high && (!integer || Number.isInteger(hint))) {
    return hint
  }
  const multipleOf = node['multipleOf']
  if (typeof multipleOf === 'number' && multipleOf > 0) {
    return ctx.random.int(Math.ceil(low / multipleOf), Math.floor(high / multipleOf)) * multipleOf
  }
  if (integer) return ctx.random.int(Math.ceil(low), Math.floor(high))
  const value = Math.round((low + ctx.random.next() * (high - low)) * 100) / 100
  return Math.min(high, Math.max(low, value))
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback
}
