import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { floorCheck, floorValidator, REJECTED, stubModel, type FloorMessage } from '../../bench/contenders/floor.ts'
import { PAYLOADS, SCENARIOS } from '../../bench/scenarios.ts'

// What the issue asks the floor to be: the minimal loop a user would write by hand, so that the
// ratios measure the library's cost and not a heavier baseline.
describe('the bench floor is the minimal hand-written loop', () => {
  it('its model is synchronous: a step is a string, not a promise', () => {
    const scenario = SCENARIOS.find((s) => s.id === 'c')
    const { model } = stubModel(scenario?.primary ?? [])
    const answer: unknown = model([])
    expect(typeof answer).toBe('string')
    expect(answer).toBe(PAYLOADS.schemaInvalid)
  })

  it('the invalid answer of scenario (c) has exactly one issue', () => {
    expect([...floorValidator(false).Errors(JSON.parse(PAYLOADS.schemaInvalid))]).toHaveLength(1)
  })

  it('a rejected answer costs one Errors() pass and two appended messages, and throws nothing', () => {
    const messages: FloorMessage[] = [{ role: 'user', content: 'refund order 42' }]
    expect(floorCheck(PAYLOADS.schemaInvalid, floorValidator(false), 'user', messages)).toBe(REJECTED)
    expect(messages).toHaveLength(3)
    expect(messages[1]).toEqual({ role: 'assistant', content: PAYLOADS.schemaInvalid })
    expect(messages[2]?.role).toBe('user')
    expect(messages[2]?.content.split('\n')).toHaveLength(2)
    expect(floorCheck(PAYLOADS.malformed, floorValidator(false), 'user', messages)).toBe(REJECTED)
    expect(messages).toHaveLength(5)
    expect(floorCheck(PAYLOADS.valid, floorValidator(false), 'user', messages)).toEqual(JSON.parse(PAYLOADS.valid))
    expect(messages).toHaveLength(5)
  })
})

describe('the library rows run at the library’s defaults, with a listener', () => {
  const source = readFileSync(new URL('../../bench/contenders/gate.ts', import.meta.url), 'utf8')

  it('turn off nothing the library does by default (repair, feedback, attempt logs)', () => {
    for (const option of ['repair:', 'errorFeedback:', 'feedbackMode:', 'maxFeedbackChars:', 'validateOutput:']) {
      expect(source, `bench/contenders/gate.ts sets ${option}`).not.toContain(option)
    }
  })

  it('attach a validation_failed listener to the gate and the agent rows', () => {
    expect(source).toContain("gate.on('validation_failed', noop)")
    expect(source).toContain("agent.on('validation_failed', noop)")
  })
})
