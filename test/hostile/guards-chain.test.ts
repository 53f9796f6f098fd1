import { describe, expect, it } from 'vitest'
import { contentGuard, createGate, piiGuard } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { streamWindow } from '../../src/validation/guards/index.ts'
import { type GuardRecord, runContentGuards } from '../../src/validation/guards/run-content-guards.ts'

const CARD = '4111 1111 1111 1111'
const ask = { messages: [{ role: 'user' as const, content: 'answer' }] }

// A guard whose replacement holds what an earlier guard removes: the worst a user's redactor can do.
const echoCard = contentGuard('echoCard', ({ text }) =>
  text.includes('TOKEN') ? { action: 'redact', text: text.replace('TOKEN', CARD) } : { action: 'allow' },
)

describe('runContentGuards', () => {
  it('screens a later guard redaction again with the guards before it, so no handed-on text holds a matched span', async () => {
    const records: GuardRecord[] = []
    const outcome = await runContentGuards([piiGuard(), echoCard], { surface: 'output', text: 'pay TOKEN now', report: (r) => records.push(r) })
    expect(outcome).toMatchObject({ action: 'redact', text: 'pay [REDACTED:card] now' })
    expect(records.map((r) => `${r.guard}:${r.action}`)).toEqual(['pii:allow', 'echoCard:redact', 'pii:redact'])
  })

  it('blocks when redactions keep undoing each other, instead of handing on a text some guard still rewrites', async () => {
    const aToB = contentGuard('aToB', ({ text }) => (text.includes('A') ? { action: 'redact', text: text.replaceAll('A', 'B') } : { action: 'allow' }))
    const bToA = contentGuard('bToA', ({ text }) => (text.includes('B') ? { action: 'redact', text: text.replaceAll('B', 'A') } : { action: 'allow' }))
    const outcome = await runContentGuards([aToB, bToA], { surface: 'output', text: 'A' })
    expect(outcome).toMatchObject({ action: 'block', reason: expect.stringMatching(/did not settle/) })
  })

  it('reports each guard once when the re-screen finds nothing new', async () => {
    const records: GuardRecord[] = []
    await runContentGuards([piiGuard()], { surface: 'output', text: `card ${CARD}`, report: (r) => records.push(r) })
    expect(records.map((r) => r.action)).toEqual(['redact'])
  })
})

describe('createGate contentGuards', () => {
  it('never answers a matched span that a later guard wrote into its replacement', async () => {
    const gate = createGate({ providers: scripted(['say TOKEN now']), contentGuards: [piiGuard(), echoCard] })
    const result = await gate.run(ask)
    expect(result.value).toBe('say [REDACTED:card] now')
  })
})

describe('streamWindow', () => {
  it('releases no matched span that a later guard wrote into its replacement, whatever the chunking', async () => {
    for (let size = 1; size <= 14; size++) {
      const window = streamWindow([piiGuard(), echoCard])
      const text = 'say TOKEN now, then more text'
      let out = ''
      for (let i = 0; i < text.length; i += size) {
        const r = await window.push(text.slice(i, i + size))
        if (r.action === 'release') out += r.text
      }
      const end = await window.end()
      if (end.action === 'release') out += end.text
      expect(out).not.toContain('4111')
      expect(out).toBe('say [REDACTED:card] now, then more text')
    }
  })
})

describe('a guard whose replacement holds its own match', () => {
  it('blocks rather than hand on the span it was made to remove', async () => {
    const leaky = contentGuard('leaky', ({ text }) =>
      text.includes('CANARY') ? { action: 'redact', text: text.replace('CANARY', 'CANARY (hidden)') } : { action: 'allow' },
    )
    const outcome = await runContentGuards([leaky], { surface: 'output', text: 'the CANARY is here' })
    expect(outcome).toMatchObject({ action: 'block', guard: 'leaky' })
  })

  it('hands on an idempotent redaction, each guard reporting once', async () => {
    const records: GuardRecord[] = []
    const blind = contentGuard('blind', ({ text }) => ({ action: 'redact', text: text.replaceAll('secret', '******') }))
    const outcome = await runContentGuards([blind], { surface: 'output', text: 'a secret and a secret', report: (r) => records.push(r) })
    expect(outcome).toMatchObject({ action: 'redact', text: 'a ****** and a ******' })
    expect(records.map((r) => r.action)).toEqual(['redact'])
  })
})
