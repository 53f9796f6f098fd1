import type { ValidationIssue } from '../issue.ts'
import { canonicalExpected, dedupeIssues, makeIssue, MAX_COLLECTED_ISSUES, oneOf } from './make-issue.ts'
import { isMissingProperty, valueAt, type PathSegment } from './path.ts'
import { renderLiteral, renderReceived } from './received.ts'

/** A Standard Schema issue, or a ZodError issue, with whatever extra fields its vendor adds. */
type VendorIssue = Readonly<Record<string, unknown>>

/** One vendor issue as read: the issue, its path as segments, its message, and the value that was validated (its path points into it). */
interface ReadIssue {
  readonly issue: VendorIssue
  readonly segments: PathSegment[]
  readonly message: string
  readonly root: unknown
}

/**
 * Normalises issues from Standard Schema validators and ZodError-like errors. Zod issues carry a
 * `code`, Valibot issues a `kind` and a `type`; anything else becomes an `other` issue with the
 * vendor's message. `received` is always rendered from the value itself, since Zod omits it. At
 * most `MAX_COLLECTED_ISSUES` are kept.
 */
export function vendorIssues(issues: readonly unknown[], root: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = []
  // Bounded as TypeBox's are: past the cap the issues are not worded (a list of a million wrong items).
  for (let i = 0; i < issues.length && out.length < MAX_COLLECTED_ISSUES; i++) {
    const raw = issues[i]
    if (typeof raw !== 'object' || raw === null) continue
    const issue = raw as VendorIssue
    const segments = toSegments(issue['path'])
    const message = typeof issue['message'] === 'string' ? issue['message'] : 'invalid value'
    if (typeof issue['code'] === 'string') out.push(...zodIssue({ issue, segments, message, root }, issue['code']))
    else if (typeof issue['kind'] === 'string' && typeof issue['type'] === 'string') {
      out.push(valibotIssue({ issue, segments, message, root }, issue['type']))
    } else out.push(makeIssue({ segments, code: 'other', message }))
  }
  return dedupeIssues(out.length > MAX_COLLECTED_ISSUES ? out.slice(0, MAX_COLLECTED_ISSUES) : out)
}

function zodIssue(read: ReadIssue, code: string): ValidationIssue[] {
  const { issue, segments, message, root } = read
  switch (code) {
    case 'invalid_type': {
      // Zod reports an absent required field as a type error with `received undefined`.
      if (isMissingProperty(root, segments)) return [makeIssue({ segments, code: 'missing_required', message })]
      const expected = zodExpected(issue)
      return [makeIssue({ segments, code: 'invalid_type', message, expected, received: renderReceived(valueAt(root, segments), expected) })]
    }
    case 'unrecognized_keys':
      return stringArray(issue['keys']).map((key) => makeIssue({ segments: [...segments, key], code: 'unknown_property', message }))
    case 'invalid_value':
    case 'invalid_enum_value':
    case 'invalid_literal': {
      const values = Array.isArray(issue['values']) ? issue['values'] : Array.isArray(issue['options']) ? issue['options'] : [issue['expected']]
      return [enumIssue(segments, values, message, root)]
    }
    case 'invalid_union': {
      const values = unionLiterals(issue['errors'])
      return [values === undefined ? makeIssue({ segments, code: 'other', message }) : enumIssue(segments, values, message, root)]
    }
    case 'invalid_format':
    case 'invalid_string': {
      const format = issue['format'] ?? issue['validation']
      if (typeof format !== 'string' || format === 'regex') return [makeIssue({ segments, code: 'other', message })]
      const expected = canonicalExpected(format)
      return [makeIssue({ segments, code: 'invalid_format', message, expected, received: renderReceived(valueAt(root, segments), expected) })]
    }
    default:
      return [makeIssue({ segments, code: 'other', message })]
  }
}

function zodExpected(issue: VendorIssue): string {
  // Zod 4 says `expected: 'int'` for `z.number().int()`.
  const expected = typeof issue['expected'] === 'string' ? issue['expected'] : 'unknown'
  return canonicalExpected(expected)
}

// Zod 4 reports a union of literals as `invalid_union` whose branches are each one `invalid_value`.
function unionLiterals(branches: unknown): unknown[] | undefined {
  if (!Array.isArray(branches) || branches.length === 0) return undefined
  const values: unknown[] = []
  for (const branch of branches) {
    if (!Array.isArray(branch) || branch.length !== 1) return undefined
    const only = branch[0] as VendorIssue | undefined
    if (only?.['code'] !== 'invalid_value' || !Array.isArray(only['values'])) return undefined
    values.push(...(only['values'] as unknown[]))
  }
  return values
}

const VALIBOT_OBJECTS = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest'])
const VALIBOT_LITERALS = new Set(['picklist', 'enum', 'literal'])
const VALIBOT_TYPES = new Set([
  'string',
  'number',
  'boolean',
  'bigint',
  'null',
  'array',
  'tuple',
  'strict_tuple',
  'loose_tuple',
  'object',
  'strict_object',
  'loose_object',
  'object_with_rest',
  'date',
])
const VALIBOT_FORMATS = new Set([
  'iso_date_time',
  'iso_timestamp',
  'iso_date',
  'iso_time',
  'email',
  'rfc_email',
  'url',
  'uuid',
  'ipv4',
  'ipv6',
  'ip',
  'ulid',
  'cuid2',
  'nanoid',
  'base64',
  'hexadecimal',
  'hex_color',
  'mac',
])

function valibotIssue(read: ReadIssue, type: string): ValidationIssue {
  const { issue, segments, message, root } = read
  const kind = issue['kind']
  if (kind === 'schema' && VALIBOT_OBJECTS.has(type) && segments.length > 0) {
    // Valibot reports a missing key at the key's path, and a strict object's extra key as `never`.
    if (isMissingProperty(root, segments)) return makeIssue({ segments, code: 'missing_required', message })
    if (issue['expected'] === 'never') return makeIssue({ segments, code: 'unknown_property', message })
  }
  if (kind === 'schema' && VALIBOT_LITERALS.has(type)) {
    return enumIssue(segments, valibotLiterals(issue['expected']), message, root)
  }
  if (kind === 'schema' && VALIBOT_TYPES.has(type)) {
    const expected = canonicalExpected(type)
    return makeIssue({ segments, code: 'invalid_type', message, expected, received: renderReceived(valueAt(root, segments), expected) })
  }
  if (kind === 'validation' && type === 'integer') {
    return makeIssue({ segments, code: 'invalid_type', message, expected: 'integer', received: renderReceived(valueAt(root, segments), 'integer') })
  }
  if (kind === 'validation' && VALIBOT_FORMATS.has(type)) {
    const expected = canonicalExpected(type)
    return makeIssue({ segments, code: 'invalid_format', message, expected, received: renderReceived(valueAt(root, segments), expected) })
  }
  return makeIssue({ segments, code: 'other', message })
}

// Valibot renders the allowed literals as one string: `("refund" | "reject")`.
function valibotLiterals(expected: unknown): unknown[] {
  if (typeof expected !== 'string') return []
  const inner = expected.startsWith('(') && expected.endsWith(')') ? expected.slice(1, -1) : expected
  return inner.split(' | ').map((part) => {
    try {
      return JSON.parse(part) as unknown
    } catch {
      return part
    }
  })
}

function enumIssue(segments: PathSegment[], values: readonly unknown[], message: string, root: unknown): ValidationIssue {
  return makeIssue({ segments, code: 'invalid_enum', message, expected: oneOf(values), received: renderLiteral(valueAt(root, segments)) })
}

function toSegments(path: unknown): PathSegment[] {
  if (!Array.isArray(path)) return []
  return path.map((raw: unknown) => {
    const key = typeof raw === 'object' && raw !== null && 'key' in raw ? (raw as { key: unknown }).key : raw
    if (typeof key === 'number' || typeof key === 'string') return key
    if (typeof key === 'symbol') return key.description ?? ''
    return String(key)
  })
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : []
}
