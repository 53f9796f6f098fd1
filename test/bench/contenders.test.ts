import { describe, expect, it } from 'vitest'
import { CONTENDERS, isUnsupported } from '../../bench/contenders/index.ts'
import { expectedValue, SCENARIOS } from '../../bench/scenarios.ts'
import { AGENT, FLOOR, FLOOR_WITH_LOG, GATE_EVENTS } from '../../bench/targets.ts'

// The rows the targets and the reference are read from, and the gate without a listener. The peers
// (AI SDK, LangChain, instructor) are checked by `npm run bench` itself before it times them.
const CHECKED = [FLOOR, FLOOR_WITH_LOG, 'reliability-gate: gate', GATE_EVENTS, AGENT, 'cockatiel retry + hand-written call']

describe('bench contenders', () => {
  it('names every checked row as the bench does', () => {
    expect(CHECKED.every((name) => CONTENDERS.some((c) => c.name === name))).toBe(true)
  })

  for (const name of CHECKED) {
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
      // The floor, the reference and the Agent do all five scenarios; the gate leaves (d) to the Agent.
      expect(supported).toEqual(name.includes(': gate') ? ['a', 'b', 'c', 'e'] : ['a', 'b', 'c', 'd', 'e'])
    })
  }
})
