import { describe, expect, it } from 'vitest'
import { CONTENDERS, isUnsupported } from '../../bench/contenders/index.ts'
import { expectedValue, SCENARIOS } from '../../bench/scenarios.ts'
import {
  AGENT_PLAIN,
  AGENT_PRODUCTION,
  COCKATIEL_PRODUCTION,
  FLOOR,
  FLOOR_WITH_LOG,
  GATE_NO_LISTENER,
  GATE_PLAIN,
  GATE_PRODUCTION,
  TARGETS,
  ANCHORS,
} from '../../bench/targets.ts'

// The rows the targets, the anchor and the reference are read from, with the scenarios each one does.
// The peers (AI SDK, LangChain, instructor) are checked by `npm run bench` itself before it times them.
const ALL = ['a', 'b', 'c', 'd', 'e']
const CHECKED: Readonly<Record<string, readonly string[]>> = {
  [FLOOR]: ALL,
  [FLOOR_WITH_LOG]: ALL,
  // The gate leaves (d) to the Agent's tool loop.
  [GATE_NO_LISTENER]: ['a', 'b', 'c', 'e'],
  [GATE_PLAIN]: ['a', 'b', 'c', 'e'],
  [AGENT_PLAIN]: ALL,
  // The production rows skip (e): retryTransient() waits its real backoff before failing over.
  [GATE_PRODUCTION]: ['a', 'b', 'c'],
  [AGENT_PRODUCTION]: ['a', 'b', 'c', 'd'],
  // cockatiel's production composition has no fallback.
  [COCKATIEL_PRODUCTION]: ['a', 'b', 'c', 'd'],
  'cockatiel retry + hand-written call': ALL,
}

describe('bench contenders', () => {
  it('names every checked row as the bench does', () => {
    expect(Object.keys(CHECKED).filter((name) => !CONTENDERS.some((c) => c.name === name))).toEqual([])
  })

  it('measures every row a target or an anchor reads', () => {
    const read = [...TARGETS, ...ANCHORS].map((t) => t.contender)
    expect(read.filter((name) => !CONTENDERS.some((c) => c.name === name))).toEqual([])
    expect(read.filter((name) => CHECKED[name] === undefined)).toEqual([])
  })

  for (const [name, expected] of Object.entries(CHECKED)) {
    it(`${name}: accepts the same value on every scenario it supports, call after call`, async () => {
      const contender = await (CONTENDERS.find((c) => c.name === name) as (typeof CONTENDERS)[number]).load()
      expect(contender.name).toBe(name)
      const supported: string[] = []
      for (const scenario of SCENARIOS) {
        const prepared = await contender.prepare(scenario)
        if (isUnsupported(prepared)) continue
        supported.push(scenario.id)
        for (let call = 0; call < 3; call++) {
          const result = await prepared.call()
          expect({ scenario: scenario.id, value: prepared.unwrap === undefined ? result : prepared.unwrap(result) }).toEqual({
            scenario: scenario.id,
            value: expectedValue(scenario),
          })
        }
      }
      expect(supported).toEqual(expected)
    })
  }
})
