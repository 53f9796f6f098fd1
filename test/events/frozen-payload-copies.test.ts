import { describe, expect, it } from 'vitest'
import { freezePayload } from '../../src/events/frozen-payload.ts'

describe('freezePayload', () => {
  it('freezes a large list once and a small one again, whatever carries them', () => {
    const messages = Array.from({ length: 40 }, (_, i) => ({ role: 'user', content: `m${i}` }))
    const small = [{ path: 'amount', segments: ['amount'] }]
    for (let event = 0; event < 3; event++) freezePayload({ runId: 'r', request: { messages }, issues: small })
    expect(Object.isFrozen(messages) && messages.every((m) => Object.isFrozen(m))).toBe(true)
    expect(Object.isFrozen(small) && Object.isFrozen(small[0]) && Object.isFrozen(small[0]?.segments)).toBe(true)
  })

  it('copies the caller’s metadata: later events given that copy carry it, never a copy of it; the caller’s object again is copied again', () => {
    const metadata = { tenant: 'acme', tags: ['a'] }
    const first = freezePayload({ runId: 'r', metadata })
    const second = freezePayload({ runId: 'r', metadata: first.metadata })
    const third = freezePayload({ runId: 'r', metadata })
    expect(first.metadata).not.toBe(metadata)
    expect(second.metadata).toBe(first.metadata)
    expect(third.metadata).toEqual(first.metadata)
    expect(Object.isFrozen(metadata)).toBe(false)
  })
})
