import { resolveJsonPointer } from './json-pointer.ts'
import { METASCHEMAS } from './schema-patterns.ts'
import { DATA_KEYWORDS, NAME_MAPS } from './schema-keywords.ts'
import { canonicalUri, nextUri, ROOT_URI } from './schema-uri.ts'

// Keywords that apply a subschema to the same instance: a `$ref` cycle through these alone never terminates.
const IN_PLACE_SINGLES = ['not', 'if', 'then', 'else'] as const
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const

// The meta-schemas and their vocabularies: the compiler resolves the ones it ships.
const JSON_SCHEMA_ORG = /^https?:\/\/json-schema\.org\//

/** A `$ref` found on the walk: the schema that holds it, the reference, the base URI it resolves against, and where it is. */
interface FoundRef {
  readonly node: object
  readonly ref: string
  readonly base: string
  readonly at: string
}

interface Walked {
  readonly resources: Map<string, object>
  readonly anchors: Set<string>
  readonly refs: FoundRef[]
}

/**
 * Refuses, at compile time, a raw JSON Schema whose `$ref`s cannot work: a reference that resolves
 * nowhere (an absolute or relative URI that is neither in the document, nor in the registry, nor a
 * well-known meta-schema; a pointer or an anchor the target does not hold), and references that loop
 * back to a schema through in-place applicators only (`{ $ref: '#' }`, `anyOf: [..., { $ref: '#' }]`),
 * which never terminate. A recursive schema that descends into the value on its way back
 * (`items: { $ref: '#' }` under a property) is legal. A schema object that contains itself (a cycle of
 * JavaScript objects, which no JSON text can hold) is refused too: write the recursion with `$ref`.
 * So is a `$ref` or `$dynamicRef` that is no URI reference (`#/$defs/100%`: a `%` must start an escape, `%25`).
 *
 * @throws Error naming the reference (or the place) and why.
 */
export function assertRefsWork(root: object, registry: Readonly<Record<string, object | boolean>>): void {
  const walked: Walked = { resources: new Map(), anchors: new Set(), refs: [] }
  walk(root, ROOT_URI, walked, true)
  for (const [uri, doc] of Object.entries(registry)) if (typeof doc === 'object') walk(doc, uri, walked, false)
  const targets = new Map<object, object[]>()
  for (const found of walked.refs) {
    const target = resolveRef(found, root, registry, walked)
    if (target === undefined) fail(found.at, `$ref ${JSON.stringify(found.ref)} does not resolve (no schema in the document or the registry has that URI)`)
    if (typeof target === 'object' && target !== null) targets.set(found.node, [...(targets.get(found.node) ?? []), target])
  }
  const loop = findInPlaceLoop(root, targets)
  if (loop !== undefined) fail(loop, 'the schema refers to itself through $ref without descending into the value, so checking any value never terminates')
}

function walk(doc: object, docBase: string, walked: Walked, collectRefs: boolean): void {
  // Iterative depth first, with the ancestors on the path: a node among its own ancestors is a cycle of objects.
  const stack: { node: unknown; base: string; at: string; exit?: true }[] = [{ node: doc, base: docBase, at: '#' }]
  const onPath = new Set<object>()
  const done = new Set<object>()
  if (docBase !== ROOT_URI) walked.resources.set(canonicalUri(docBase), doc)
  while (stack.length > 0) {
    const { node, base: parentBase, at, exit } = stack.pop() as (typeof stack)[number]
    if (typeof node !== 'object' || node === null) continue
    if (exit === true) {
      onPath.delete(node)
      done.add(node)
      continue
    }
    if (onPath.has(node)) fail(at, 'the schema object contains itself (a cycle of objects); write the recursion with $ref')
    if (done.has(node)) continue
    onPath.add(node)
    stack.push({ node, base: parentBase, at, exit: true })
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i] as unknown, base: parentBase, at: `${at}/${i}` })
      continue
    }
    const schema = node as Record<string, unknown>
    let base = parentBase
    const id = schema['$id']
    if (typeof id === 'string') {
      if (id.startsWith('#')) walked.anchors.add(anchorUri(base, id.slice(1)))
      else {
        base = canonicalUri(nextUri(id, base))
        walked.resources.set(base, node)
      }
    }
    for (const key of ['$anchor', '$dynamicAnchor'] as const) {
      const anchor = schema[key]
      if (typeof anchor === 'string') walked.anchors.add(anchorUri(base, anchor))
    }
    // A `%` not followed by two hex digits is no URI: named here, not left to the compiler's bare "URI malformed".
    for (const key of ['$ref', '$dynamicRef'] as const) {
      const uri = schema[key]
      if (typeof uri === 'string' && safeDecode(uri) === undefined)
        fail(`${at}/${key}`, `${key} ${JSON.stringify(uri)} is not a valid URI reference (a "%" must start an escape such as %25, which is "%" itself)`)
    }
    const ref = schema['$ref']
    // Only the document's own references are checked: a registry may hold documents it never reaches.
    if (collectRefs && typeof ref === 'string') walked.refs.push({ node, ref, base, at: `${at}/$ref` })
    for (const [key, value] of Object.entries(schema)) {
      if (DATA_KEYWORDS.has(key) || typeof value !== 'object' || value === null) continue
      if (NAME_MAPS.has(key) && !Array.isArray(value)) {
        for (const [name, child] of Object.entries(value)) stack.push({ node: child, base, at: `${at}/${key}/${name}` })
      } else stack.push({ node: value, base, at: `${at}/${key}` })
    }
  }
}

/** The schema a `$ref` points at, `true` for a meta-schema (resolved by the compiler), `undefined` when nothing. */
function resolveRef({ ref, base }: FoundRef, root: object, registry: Readonly<Record<string, object | boolean>>, walked: Walked): unknown {
  const target = nextUri(ref, base)
  const hash = target.indexOf('#')
  const canonical = canonicalUri(target)
  const fragment = hash < 0 ? '' : target.slice(hash + 1)
  const doc: unknown = walked.resources.get(canonical) ?? (canonical === ROOT_URI ? root : registry[canonical])
  if (doc === undefined) return METASCHEMAS.has(canonical) || JSON_SCHEMA_ORG.test(canonical) ? true : undefined
  if (fragment === '') return doc
  if (fragment.startsWith('/')) return resolveJsonPointer(doc, `#${fragment}`) ?? (ref.startsWith('#/') ? resolveJsonPointer(root, ref) : undefined)
  return walked.anchors.has(`${canonical}#${fragment}`) ? true : undefined
}

/**
 * An anchor's URI as the compiler matches a `$ref` to it: both written as URLs (`#a b` is `#a%20b`,
 * `#é` is `#%C3%A9`), never decoded, so `#a%2Fb` does not name the anchor `a/b` (the compiler would
 * find nothing there, and check every value against `false`).
 */
function anchorUri(base: string, anchor: string): string {
  const uri = `${canonicalUri(base)}#${anchor}`
  return URL.canParse(uri) ? new URL(uri).href : uri
}

/** A place where in-place applicators and `$ref`s lead back to a schema already being applied, or `undefined`. */
function findInPlaceLoop(root: object, targets: ReadonlyMap<object, object[]>): string | undefined {
  const state = new Map<object, 'open' | 'closed'>()
  const stack: { node: unknown; at: string; exit?: true }[] = []
  // Every schema of the document is a starting point: a loop may sit under a property.
  const all: { node: object; at: string }[] = []
  collect(root, '#', all)
  for (const start of all) {
    stack.push({ node: start.node, at: start.at })
    while (stack.length > 0) {
      const { node, at, exit } = stack.pop() as (typeof stack)[number]
      if (typeof node !== 'object' || node === null || Array.isArray(node)) continue
      if (exit === true) {
        state.set(node, 'closed')
        continue
      }
      const seen = state.get(node)
      if (seen === 'open') return at
      if (seen === 'closed') continue
      state.set(node, 'open')
      stack.push({ node, at, exit: true })
      const schema = node as Record<string, unknown>
      for (const key of IN_PLACE_SINGLES) if (typeof schema[key] === 'object') stack.push({ node: schema[key], at: `${at}/${key}` })
      for (const key of IN_PLACE_LISTS) {
        const list = schema[key]
        if (Array.isArray(list)) for (let i = 0; i < list.length; i++) stack.push({ node: list[i] as unknown, at: `${at}/${key}/${i}` })
      }
      for (const target of targets.get(node) ?? []) stack.push({ node: target, at: `${at}/$ref` })
    }
  }
  return undefined
}

function collect(node: unknown, at: string, out: { node: object; at: string }[], seen = new Set<object>()): void {
  const stack: { node: unknown; at: string }[] = [{ node, at }]
  while (stack.length > 0) {
    const next = stack.pop() as { node: unknown; at: string }
    if (typeof next.node !== 'object' || next.node === null || seen.has(next.node)) continue
    seen.add(next.node)
    if (!Array.isArray(next.node)) out.push({ node: next.node, at: next.at })
    for (const [key, value] of Object.entries(next.node)) if (!DATA_KEYWORDS.has(key)) stack.push({ node: value, at: `${next.at}/${key}` })
  }
}

/** The percent-decoded text, `undefined` when an escape is malformed (`100%`). */
function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

function fail(at: string, reason: string): never {
  throw new Error(`invalid JSON Schema at ${at}: ${reason}`)
}
