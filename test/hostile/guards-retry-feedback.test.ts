import { describe, expect, it } from 'vitest'
import { contentGuard, createGate, type GateEventMap, piiGuard } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const CARD = '4111 1111 1111 1111'
const ask = { messages: [{ role: 'user' as const, content: 'answer' }] }

// A guard that re-asks once with feedback quoting what it objects to: a card, in a megabyte of text.
function reaskOnce(surfaces: ('output' | 'stream')[]) {
  let asked = 0
  return contentGuard(
    'reask',
    () => (asked++ === 0 ? { action: 'retry-with-feedback', feedback: `Do not write ${CARD}. ${'z'.repeat(1_000_000)}` } : { action: 'allow' }),
    { surfaces },
  )
}

describe('createGate contentGuards on the retry tail', () => {
  it("screens an output guard's re-ask feedback before it is sent: no canary reaches the provider, and the tail stays bounded", async () => {
    const provider = scripted(['first', 'second'])
    const gate = createGate({ providers: provider, contentGuards: [piiGuard(), reaskOnce(['output'])] })
    const verdicts: GateEventMap['guard_verdict'][] = []
    gate.on('guard_verdict', (e) => verdicts.push(e))
    const result = await gate.run(ask)
    expect(result.value).toBe('second')
    expect(provider.requests).toHaveLength(2)
    const retry = JSON.stringify(provider.requests[1])
    expect(retry).not.toContain('4111')
    expect(retry).toContain('[REDACTED:card]')
    expect(retry.length).toBeLessThan(100_000)
    expect(verdicts.some((v) => v.surface === 'retry-tail' && v.action === 'redact')).toBe(true)
  })

  it('replaces the feedback with a notice when a retry-tail guard blocks it', async () => {
    const provider = scripted(['first', 'second'])
    const noCards = contentGuard('noCards', ({ text }) => (text.includes('4111') ? { action: 'block', reason: 'a card' } : { action: 'allow' }), {
      surfaces: ['retry-tail'],
    })
    const gate = createGate({ providers: provider, contentGuards: [noCards, reaskOnce(['output'])] })
    await gate.run(ask)
    const retry = JSON.stringify(provider.requests[1])
    expect(retry).not.toContain('4111')
    expect(retry).toContain('withheld by a content guard')
  })
})
