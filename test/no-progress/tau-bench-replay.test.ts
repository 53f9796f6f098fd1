import { beforeAll, expect, it } from 'vitest'
import { type NoProgressReplay, replayHostHistories, replayNoProgress } from '../../bench/eval/no-progress-replay.ts'
import { corpora, describeWith } from '../support/requirements.ts'

describeWith(corpora)('no-progress ladder on the tau-bench GPT-4o airline trajectories', () => {
  let replay: NoProgressReplay
  beforeAll(async () => {
    replay = await replayNoProgress()
  }, 300_000)

  it('replays the 200 trajectories and their 1,164 calls as agent runs', () => {
    expect(replay.trajectories).toBe(200)
    expect(replay.calls).toBe(1164)
    expect(replay.failed).toEqual([])
  })

  it('stops none of the recorded runs with the default thresholds', () => {
    expect(replay.stopped).toBe(0)
    expect(replay.rungs.stop).toBe(0)
    expect(replay.rungs['forced-change']).toBe(0)
    // The one real loop of the corpus (book_reservation failing 5 times alike) gets a nudge, not a stop.
    expect(replay.rungRuns).toEqual(['trajectory 109: nudge repeated-error book_reservation x5'])
  })

  it.each(['repeated-call', 'ping-pong', 'repeated-error', 'repeated-text'] as const)(
    'stops every run with an injected %s exactly at its threshold, after a nudge and a forced change',
    (loop) => {
      const tally = replay.injected[loop]
      expect(tally.runs).toBe(182)
      expect(tally.misses).toEqual([])
      expect(tally.stopped).toBe(tally.runs)
      expect(tally.exact).toBe(tally.runs)
      expect(tally.tokensInLoop).toBeGreaterThan(0)
    },
  )

  it('stops none of the recorded model calls in a host middleware reading the conversation', () => {
    const hosts = replayHostHistories()
    expect(hosts.modelCalls).toBeGreaterThan(1164)
    // Trajectory 109's nudge falls on the call after its last recorded message, which the recording does not hold.
    expect(hosts.rungs).toEqual({ nudge: 0, 'forced-change': 0, stop: 0 })
  })
})
