import type { ValidationIssue } from '../issue.ts'
import { canonicalExpected, dedupeIssues, makeIssue, oneOf } from './make-issue.ts'
import { pointerToSegments, valueAt, type PathSegment } from './path.ts'
import { renderLiteral, renderReceived } from './received.ts'

/** The shape of one TypeBox (1.x) validation error, as `Compile(schema).Errors(value)` yields it. */
export interface TypeBoxError {
  readonly keyword: string
  readonly schemaPath: string
  readonly instancePath: string
  readonly params: Readonly<Record<string, unknown>>
  readonly message: string
}

/**
 * Normalises TypeBox errors into issues: one issue per missing or unknown property, one
 * `invalid_enum` for a union of literals (TypeBox reports each branch and the `anyOf` separately),
 * and no duplicate for the `boolean` error that shadows every `additionalProperties` error.
 */
export function typeboxIssues(errors: readonly TypeBoxError[], root: unknown): ValidationIssue[] {
  const consumed = new Set<TypeBoxError>()
  const unionIssues = new Map<TypeBoxError, ValidationIssue>()
  for (const error of errors) {
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') continue
    const prefix = `${error.schemaPath}/${error.keyword}/`
    const branches = errors.filter((e) => e !== error && e.schemaPath.startsWith(prefix))
    for (const branch of branches) consumed.add(branch)
    unionIssues.set(error, unionIssue(error, branches, prefix, root))
  }

  const issues: ValidationIssue[] = []
  // Literal errors reported outside a union (or cut off from theirs) merge per path.
  const literals = new Map<string, { index: number; segments: PathSegment[]; values: unknown[] }>()
  for (const error of errors) {
    if (consumed.has(error)) continue
    const union = unionIssues.get(error)
    if (union !== undefined) {
      issues.push(union)
      continue
    }
    const segments = pointerToSegments(error.instancePath, root)
    if (error.keyword === 'const' || error.keyword === 'enum') {
      const values = error.keyword === 'const' ? [error.params['allowedValue']] : asArray(error.params['allowedValues'])
      const known = literals.get(error.instancePath)
      if (known === undefined) {
        literals.set(error.instancePath, { index: issues.length, segments, values: [...values] })
        issues.push(makeIssue({ segments, code: 'invalid_enum', message: error.message }))
      } else known.values.push(...values)
      continue
    }
    issues.push(...errorIssues(error, segments, root))
  }
  for (const literal of literals.values()) {
    const first = issues[literal.index]
    if (first === undefined) continue
    issues[literal.index] = makeIssue({
      segments: literal.segments,
      code: 'invalid_enum',
      message: first.message,
      expected: oneOf(literal.values),
      received: renderLiteral(valueAt(root, literal.segments)),
    })
  }
  return dedupeIssues(withoutShadowedTypes(issues))
}

/**
 * Drops a type issue at a path that also has an enum issue: `{ type: 'string', enum: [...] }` fails
 * both on `5`, and "expected one of "refund", "reject", got 5" says all of it (as a union of
 * literals, or Zod's enum, says it in one line).
 */
function withoutShadowedTypes(issues: ValidationIssue[]): ValidationIssue[] {
  let enums: Set<string> | undefined
  for (const issue of issues) if (issue.code === 'invalid_enum') (enums ??= new Set()).add(issue.path)
  if (enums === undefined) return issues
  const shadowed = enums
  return issues.filter((issue) => issue.code !== 'invalid_type' || !shadowed.has(issue.path))
}

function errorIssues(error: TypeBoxError, segments: PathSegment[], root: unknown): ValidationIssue[] {
  const { keyword, params, message } = error
  switch (keyword) {
    case 'boolean':
      // `additionalProperties: false` is reported twice: as this and as `additionalProperties`.
      return error.schemaPath.endsWith('/additionalProperties') ? [] : [makeIssue({ segments, code: 'other', message })]
    case 'additionalProperties':
      return asArray(params['additionalProperties']).map((name) => makeIssue({ segments: [...segments, String(name)], code: 'unknown_property', message }))
    case 'required': {
      const parent = valueAt(root, segments)
      const names = asArray(params['requiredProperties']).map(String)
      const missing = names.filter((name) => !isObject(parent) || !Object.hasOwn(parent, name))
      return (missing.length > 0 ? missing : names).map((name) => makeIssue({ segments: [...segments, name], code: 'missing_required', message }))
    }
    case 'type': {
      const expected = asArray(params['type'])
        .map((t) => canonicalExpected(String(t)))
        .join(' or ')
      return [typeIssue(segments, expected, message, root)]
    }
    case 'format': {
      const expected = canonicalExpected(String(params['format']))
      const received = renderReceived(valueAt(root, segments), expected)
      return [makeIssue({ segments, code: 'invalid_format', message, expected, received })]
    }
    default:
      return [makeIssue({ segments, code: 'other', message })]
  }
}

function unionIssue(union: TypeBoxError, branches: readonly TypeBoxError[], prefix: string, root: unknown): ValidationIssue {
  const segments = pointerToSegments(union.instancePath, root)
  const byBranch = new Map<string, TypeBoxError[]>()
  for (const error of branches) {
    const index = error.schemaPath.slice(prefix.length).split('/')[0] ?? ''
    byBranch.set(index, [...(byBranch.get(index) ?? []), error])
  }
  const sameSpot = branches.every((e) => e.instancePath === union.instancePath)
  const literals: unknown[] = []
  const types: string[] = []
  for (const errors of byBranch.values()) {
    const constant = errors.find((e) => e.keyword === 'const')
    if (constant !== undefined) literals.push(constant.params['allowedValue'])
    else if (errors.length === 1 && errors[0]?.keyword === 'type') {
      const type = asArray(errors[0].params['type']).map(String)
      if (type.length === 1 && type[0] === 'null') literals.push(null)
      types.push(...type.map(canonicalExpected))
    } else types.push('?')
  }
  if (sameSpot && byBranch.size > 0 && literals.length === byBranch.size) {
    return makeIssue({
      segments,
      code: 'invalid_enum',
      message: union.message,
      expected: oneOf(literals),
      received: renderLiteral(valueAt(root, segments)),
    })
  }
  if (sameSpot && byBranch.size > 0 && types.length === byBranch.size && !types.includes('?')) {
    return typeIssue(segments, [...new Set(types)].join(' or '), union.message, root)
  }
  return makeIssue({ segments, code: 'other', message: union.message })
}

function typeIssue(segments: PathSegment[], expected: string, message: string, root: unknown): ValidationIssue {
  const received = renderReceived(valueAt(root, segments), expected)
  return makeIssue({ segments, code: 'invalid_type', message, expected, received })
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value]
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}
