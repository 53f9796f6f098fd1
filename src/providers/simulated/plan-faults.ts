import { isDataFault, SIMULATED_FAULTS, type SimulatedFault } from './faults.ts'
import { type FaultTarget, isApplicable } from './inject-faults.ts'
import type { Random } from './prng.ts'

/**
 * Chooses the faults of a first attempt.
 *
 * `'random'` draws one or two applicable faults. An explicit list is kept in order; a fault that
 * cannot apply to this schema (e.g. `extra-field` without `additionalProperties: false`) is replaced
 * by another applicable data fault, or by `truncated-json`, so that asking for a failure gets one.
 */
export function planFaults(option: readonly SimulatedFault[] | 'random', target: FaultTarget, random: Random): SimulatedFault[] {
  const applicable = SIMULATED_FAULTS.filter((f) => isApplicable(f, target))
  if (option === 'random') {
    const pool = [...applicable]
    const count = Math.min(pool.length, random.next() < 0.5 ? 1 : 2)
    return Array.from({ length: count }, () => pool.splice(random.int(0, pool.length - 1), 1)[0] as SimulatedFault)
  }
  const planned: SimulatedFault[] = []
  for (const fault of option) {
    if (planned.includes(fault)) continue
    if (applicable.includes(fault)) {
      planned.push(fault)
      continue
    }
    const substitutes = applicable.filter((f) => isDataFault(f) && !planned.includes(f) && !option.includes(f))
    if (substitutes.length > 0) planned.push(random.pick(substitutes))
    else if (applicable.includes('truncated-json') && !planned.includes('truncated-json')) planned.push('truncated-json')
  }
  return planned
}
