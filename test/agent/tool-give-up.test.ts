import { describe, expect, it } from 'vitest'
import { toolGiveUp, type UnsettledVerdict } from '../../src/agent/tool-give-up.ts'
import type { ModelResponse } from '../../src/model/response.ts'
import { ValidationFailure } from '../../src/validation/index.ts'

const failure = new ValidationFailure({ stage: 'tool-args', message: "'days': expected integer", issues: [] } as never)
const prose: ModelResponse = { content: 'no', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }

const verdicts: readonly UnsettledVerdict[] = [
  { status: 'guard-rejected', outcome: 'no_retry', rejection: { guard: 'idShape', reason: 'slug' } as never, failure },
  { status: 'invalid-args', outcome: 'exhausted', failure },
  { status: 'invalid-args', outcome: 'llm_gave_up', failure },
  { status: 'answered', outcome: 'llm_gave_up', failure, response: prose },
  { status: 'abandoned', outcome: 'llm_gave_up', failure, reasked: true },
  { status: 'abandoned', outcome: 'llm_gave_up', failure, reasked: false },
  { status: 'stuck', outcome: 'exhausted', failure },
]

describe('toolGiveUp', () => {
  it('stops the run only for the typed stops a user turns on (abandoned, stuck)', () => {
    for (const verdict of verdicts) {
      const giveUp = toolGiveUp('get_weather', verdict, 2)
      expect(giveUp.stops).toBe(verdict.status === 'abandoned' || verdict.status === 'stuck')
      expect(giveUp.reason).toContain("'get_weather'")
    }
  })

  it('gives the agent kinds for the typed stops and tool-args-invalid for the rest', () => {
    expect(verdicts.map((v) => toolGiveUp('t', v, 1).kind)).toEqual([
      'tool-args-invalid',
      'tool-args-invalid',
      'tool-args-invalid',
      'tool-args-invalid',
      'tool-call-abandoned',
      'tool-call-abandoned',
      'schema-stuck-loop',
    ])
  })

  it('says the forced re-ask was made only when it was', () => {
    expect(toolGiveUp('t', verdicts[4] as UnsettledVerdict, 1).reason).toContain('toolChoice pinned')
    expect(toolGiveUp('t', verdicts[5] as UnsettledVerdict, 1).reason).not.toContain('toolChoice pinned')
  })

  it('counts retries in the exhausted reason', () => {
    expect(toolGiveUp('t', verdicts[1] as UnsettledVerdict, 1).reason).toContain('after 1 retry (')
    expect(toolGiveUp('t', verdicts[1] as UnsettledVerdict, 3).reason).toContain('after 3 retries (')
  })
})
