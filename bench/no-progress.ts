/**
 * `node bench/no-progress.ts` (from the worktree: `npx node bench/no-progress.ts`): the no-progress ladder on the 200 tau-bench GPT-4o airline trajectories
 * (../shared/corpora, read in place): how many recorded runs the default thresholds stop (0 is the
 * bar), and where the same runs stop with a loop injected; then the shipped pattern guards over the
 * same trajectories' 1,164 tool results (0 withheld is the bar).
 */
import { screenTauBenchResults } from './eval/guards-tau-bench.ts'
import { replayHostHistories, replayNoProgress } from './eval/no-progress-replay.ts'

const r = await replayNoProgress()
console.log(`tau-bench GPT-4o airline: ${r.trajectories} trajectories, ${r.runs} agent runs, ${r.calls} recorded tool calls`)
console.log(`recorded runs stopped with no-progress: ${r.stopped}; other failures: ${r.failed.length}`)
console.log(`ladder rungs on the recorded runs: nudge ${r.rungs.nudge}, forced-change ${r.rungs['forced-change']}, stop ${r.rungs.stop}`)
for (const line of r.rungRuns) console.log(`  ${line}`)
for (const f of r.failed.slice(0, 5)) console.log(`  failed: ${f}`)
console.log("injected loops (after each trajectory's first successful call):")
for (const [loop, t] of Object.entries(r.injected)) {
  console.log(
    `  ${loop.padEnd(15)} runs ${t.runs}, stopped ${t.stopped}, stopped exactly at count ${t.expectedCount} (threshold + 2, after a nudge and a forced change) ${t.exact}; spent in the loop before the stop: ${t.tokensInLoop} tokens, $${t.usdInLoop.toFixed(2)}`,
  )
  for (const m of t.misses.slice(0, 3)) console.log(`    miss: ${m}`)
}
const hosts = replayHostHistories()
console.log(
  `host middlewares (the conversation before each of ${hosts.modelCalls} recorded model calls): nudge ${hosts.rungs.nudge}, forced-change ${hosts.rungs['forced-change']}, stop ${hosts.rungs.stop}`,
)
const guards = screenTauBenchResults()
console.log(
  `shipped pattern guards on the ${guards.results} recorded tool results: withheld ${guards.withheld}, redacted ${guards.redacted} (findings by kind: ${JSON.stringify(guards.byKind)}); with an instruction planted (plain, zero-width, homoglyph, fullwidth): withheld ${guards.plantedWithheld} of ${guards.planted}`,
)
