import type { JsonSchema } from '../../model/request.ts'
import type { DataFault, SimulatedFault } from './faults.ts'
import type { Random } from './prng.ts'
import { isRecord } from '../../model/is-record.ts'
import { kindOf, propertiesOf, type SchemaNode } from './schema.ts'
import { deleteAt, overlaps, setAt, type Segment } from './value-path.ts'
import { walkValue, type ValueNode } from './walk-value.ts'

/** The property the `extra-field` fault invents. */
export const EXTRA_FIELD = 'note'

/** Where a data fault could land in `value`: candidate paths, each with how to damage it. */
interface Candidate {
  readonly path: readonly Segment[]
  readonly damage: (value: unknown) => unknown
}

/** The candidates of one fault, excluding paths that overlap already damaged ones. */
function candidates(fault: DataFault, value: unknown, schema: SchemaNode, root: JsonSchema): Candidate[] {
  const nodes = walkValue(value, schema, root)
  const isProperty = (n: ValueNode): boolean => typeof n.path[n.path.length - 1] === 'string'
  switch (fault) {
    case 'number-as-string':
      return nodes
        .filter((n) => isProperty(n) && typeof n.value === 'number' && ['number', 'integer'].includes(kindOf(n.schema)))
        .map((n) => ({ path: n.path, damage: (v) => setAt(v, n.path, `USD ${String(n.value)}`) }))
    case 'datetime-tomorrow':
      return nodes
        .filter((n) => isProperty(n) && typeof n.value === 'string' && ['date-time', 'date'].includes(n.schema['format'] as string))
        .map((n) => ({ path: n.path, damage: (v) => setAt(v, n.path, 'tomorrow') }))
    case 'missing-required':
      return nodes.filter((n) => isProperty(n) && n.required).map((n) => ({ path: n.path, damage: (v) => deleteAt(v, n.path) }))
    case 'extra-field':
      return nodes
        .filter((n) => isRecord(n.value) && n.schema['additionalProperties'] === false && !(EXTRA_FIELD in propertiesOf(n.schema)) && !(EXTRA_FIELD in n.value))
        .map((n) => {
          const path = [...n.path, EXTRA_FIELD]
          return { path, damage: (v) => setAt(v, path, 'added for context') }
        })
  }
}

/** A valid value and the schema it was made for: what faults damage. */
export interface FaultTarget {
  readonly value: unknown
  /** The value's schema, resolved. */
  readonly schema: SchemaNode
  /** The whole schema, where `$ref`s resolve. */
  readonly root: JsonSchema
}

/** Whether `fault` can damage the target's value at all. Format faults need an object or array to cut or fence. */
export function isApplicable(fault: SimulatedFault, { value, schema, root }: FaultTarget): boolean {
  if (fault === 'fenced-in-prose' || fault === 'truncated-json') return typeof value === 'object' && value !== null
  return candidates(fault, value, schema, root).length > 0
}

/** A data fault as applied: which fault, at which path. */
export interface AppliedFault {
  readonly fault: DataFault
  readonly path: readonly Segment[]
}

/**
 * Damages a copy of the target's value with each data fault in turn, at a random candidate path that
 * does not overlap an earlier fault (so one fix never hides another); faults with no room left are skipped.
 */
export function injectFaults(target: FaultTarget, faults: readonly DataFault[], random: Random): { value: unknown; applied: AppliedFault[] } {
  const { schema, root } = target
  let damaged = structuredClone(target.value)
  const applied: AppliedFault[] = []
  for (const fault of faults) {
    const free = candidates(fault, damaged, schema, root).filter((c) => applied.every((a) => !overlaps(a.path, c.path)))
    if (free.length === 0) continue
    const chosen = random.pick(free)
    damaged = chosen.damage(damaged)
    applied.push({ fault, path: chosen.path })
  }
  return { value: damaged, applied }
}
