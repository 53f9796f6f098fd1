import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, createGate, ProviderError, strictOutputRules, type GateEventMap, type ReliabilityScope } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, invalidEvent, makeTools, turn, validEvent } from './tool-fixtures.ts'

const Answer = Type.Object({ n: Type.Number() })
type Failed = GateEventMap['validation_failed']

describe('validation_failed.cumulativeRetries', () => {
  it('counts the validation failures of a gate run, this one included: scope.validationErrorHistory.length', async () => {
    const provider = scripted(['{"n": "one"}', new ProviderError('down', { kind: 'http-5xx', status: 503 }), '{"n": "two"}', '{"n": 3}'])
    const histories: number[] = []
    const gate = createGate({
      providers: provider,
      outputSchema: Answer,
      postDecide: [
        {
          when: (s: ReliabilityScope) => (s.validationError !== undefined && histories.push(s.validationErrorHistory.length), false),
          then: 'retry',
          kind: 'spy',
        },
        { when: (s) => s.errorKind === 'http-5xx', then: 'retry', kind: 'retry-5xx' },
        ...strictOutputRules(5),
      ],
    })
    const failed: Failed[] = []
    gate.on('validation_failed', (e) => failed.push(e))
    await gate.run({ messages: [] })
    // The 5xx of attempt 2 is no validation failure: it moves `attempt`, not `cumulativeRetries`.
    expect(failed.map((e) => [e.attempt, e.cumulativeRetries])).toEqual([
      [1, 1],
      [3, 2],
    ])
    expect(failed.map((e) => e.cumulativeRetries)).toEqual(histories)
  })

  it('counts over a whole agent run, tool arguments and final answers alike', async () => {
    const provider = scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent, 'call_retry')), '{"n": "done"}', '{"n": 1}'])
    const agent = Agent.create({ provider, model: 'm' })
      .tools([makeTools().eventTool])
      .outputSchema(Answer)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const failed: Failed[] = []
    agent.on('validation_failed', (e) => failed.push(e))
    await agent.run('book standup')
    expect(failed.map((e) => [e.stage, e.cumulativeRetries])).toEqual([
      ['tool-args', 1],
      ['schema-validate', 2],
    ])
  })
})
