/**
 * `npm run bench:check`: a quick, ratio-based check of the speed and memory targets. Measures only the
 * floor, the rows with targets (gate and `Agent.runTyped` plain, gate with the production config) and
 * the production config's cockatiel anchor on scenarios (a) and (c), each in its own process (short
 * timings, best of 2 interleaved rounds); prints every target as met / within noise / MISSED and the
 * anchor's ratios beside them, and exits with code 1 when a target is missed by more than the noise
 * margin. Never part of `npm test`: timings belong to a quiet machine.
 *
 * `node --expose-gc --min-semi-space-size=64 --max-semi-space-size=64 bench/check.ts`
 */
import { CONTENDERS } from './contenders/index.ts'
import { SCENARIOS } from './scenarios.ts'
import { bestOfRounds, toRow } from './support/child.ts'
import { canMeasureHeap } from './support/measure.ts'
import { ANCHORS, FLOOR, NOISE_MARGIN, TARGETS, targetLabel, targetRatio } from './targets.ts'

const names = new Set([FLOOR, ...TARGETS.flatMap((t) => (t.over === undefined ? [t.contender] : [t.contender, t.over])), ...ANCHORS.map((t) => t.contender)])
const contenders = CONTENDERS.filter((c) => names.has(c.name))
const shown = (ratio: number | undefined): string => (ratio === undefined ? '–' : `${ratio.toFixed(2)}x`).padStart(7)
let missed = 0
for (const id of ['a', 'c'] as const) {
  const scenario = SCENARIOS.find((s) => s.id === id)
  if (scenario === undefined) continue
  const targets = TARGETS.filter((t) => t.scenario === id)
  const anchors = ANCHORS.filter((t) => t.scenario === id)
  const heap = canMeasureHeap && [...targets, ...anchors].some((t) => t.what === 'heap')
  const reports = bestOfRounds(scenario, contenders, { rounds: 2, minCpuMs: 100, heap })
  const rows = contenders.map((c) => toRow(c.name, reports.get(c.name)))
  for (const target of targets) {
    const ratio = targetRatio(target, rows)
    const verdict = ratio === undefined ? 'not measured' : ratio <= target.max ? 'met' : ratio <= target.max * (1 + NOISE_MARGIN) ? 'within noise' : 'MISSED'
    if (ratio === undefined || verdict === 'MISSED') missed++
    console.log(`${targetLabel(target).padEnd(58)} ${shown(ratio)}  ${verdict}`)
  }
  for (const anchor of anchors) console.log(`${targetLabel(anchor).padEnd(58)} ${shown(targetRatio(anchor, rows))}  anchor (not a target)`)
}
console.log(missed === 0 ? 'bench:check passed' : `bench:check failed: ${missed} target(s) missed by more than ${NOISE_MARGIN * 100}%`)
process.exitCode = missed === 0 ? 0 : 1
