import { describe, expect, it } from 'vitest'
import { DEFAULT_ID_FIELDS, idShapeGuard } from '../../src/index.ts'
import type { GuardContext } from '../../src/agent/index.ts'

const ctx: GuardContext = { tool: 'read_email', callId: 'c1', retry: 0, agent: 'a' }
const guard = idShapeGuard()
const verdict = (args: unknown) => guard(args, ctx)

describe('idShapeGuard', () => {
  const fabricated = ['webhostmost-outlook-1', 'ivalik-gmail-4', 'user-account-99']

  for (const field of DEFAULT_ID_FIELDS) {
    it.each(fabricated)(`rejects %s in ${field}`, (id) => {
      const result = verdict({ [field]: id })
      expect(result.ok).toBe(false)
      expect(result.ok === false && result.reason).toContain(`'${field}' = "${id}" looks fabricated`)
    })
  }

  it.each([
    ['a UUID', '3f2b8c1e-9d4a-4c7e-b1f0-6a5d2e8c9b71'],
    ['a 16-hex Gmail ID', '18c4f2a9b7e3d105'],
    ['a long base64 Outlook ID', 'AAMkAGI2TG93AAAuAAAAAADUuTJK1K9aTpCdqXop_4NaAQDmz4i-ycWlSaNYw2Oy8w-HAAAAAAEMAAA='],
  ])('accepts %s', (_label, id) => {
    for (const field of DEFAULT_ID_FIELDS) expect(verdict({ [field]: id })).toEqual({ ok: true })
  })

  it('accepts payloads without ID fields, even slug-shaped values elsewhere', () => {
    expect(verdict({ query: 'from:boss', label: 'user-account-99' })).toEqual({ ok: true })
    expect(verdict({})).toEqual({ ok: true })
    expect(verdict('not an object')).toEqual({ ok: true })
    expect(verdict(null)).toEqual({ ok: true })
  })

  it('checks nested objects and lists of IDs', () => {
    expect(verdict({ batch: [{ thread_id: '18c4f2a9b7e3d105' }, { thread: { msg_id: 'acme-mail-2' } }] })).toMatchObject({ ok: false })
    expect(verdict({ message_id: ['18c4f2a9b7e3d105', 'acme-mail-2'] })).toMatchObject({ ok: false, reason: expect.stringContaining("'message_id[1]'") })
  })

  it.each([
    ['a trailing newline', 'acme-gmail-1\n'],
    ['a leading space', ' acme-gmail-1'],
    ['a trailing tab', 'acme-gmail-1\t'],
  ])('rejects a slug with %s around it, quoting it escaped', (_label, id) => {
    const result = verdict({ message_id: id })
    expect(result).toMatchObject({ ok: false, path: ['message_id'] })
    expect(result.ok === false && result.reason).toContain(`'message_id' = ${JSON.stringify(id)} looks fabricated`)
  })

  it('checks lists of lists of IDs', () => {
    expect(verdict({ thread_id: [['18c4f2a9b7e3d105'], ['acme-mail-2']] })).toMatchObject({ ok: false, path: ['thread_id', 1, 0] })
  })

  it('checks an ID nested 200 levels deep, and rejects arguments deeper than it can check', () => {
    let deep: unknown = { message_id: 'acme-mail-2' }
    for (let i = 0; i < 200; i++) deep = i % 2 === 0 ? { inner: deep } : [deep]
    expect(verdict(deep)).toMatchObject({ ok: false, reason: expect.stringContaining('looks fabricated') })
    let tooDeep: unknown = { message_id: '18c4f2a9b7e3d105' }
    for (let i = 0; i < 300; i++) tooDeep = { inner: tooDeep }
    expect(verdict(tooDeep)).toMatchObject({ ok: false, reason: expect.stringContaining('deeper than 256 levels') })
  })

  it('answers at once for arguments that refer to themselves, rejecting them', () => {
    const cyclic: Record<string, unknown> = { body: 'hi' }
    cyclic.left = cyclic
    cyclic.right = cyclic
    expect(verdict(cyclic)).toMatchObject({ ok: false, reason: expect.stringContaining('too deep to check') })
  })

  it('walks an object reached by many paths once: a shared graph 200 levels deep is answered at once', () => {
    let shared: Record<string, unknown> = { message_id: '18c4f2a9b7e3d105' }
    for (let i = 0; i < 200; i++) shared = { left: shared, right: shared }
    expect(verdict(shared)).toEqual({ ok: true })
    expect(verdict({ first: shared, then: { msg_id: 'acme-mail-2' } })).toMatchObject({ ok: false, path: ['then', 'msg_id'] })
  })

  it('quotes at most 120 characters of a fabricated value', () => {
    const id = `acme-mail-${'7'.repeat(1_000_000)}`
    const result = verdict({ message_id: id })
    expect(result.ok).toBe(false)
    expect(result.ok === false && result.reason.length).toBeLessThan(400)
  })

  it('takes its own fields and pattern', () => {
    const orders = idShapeGuard({ fields: ['order_id'], pattern: /^ORD-\d{1,2}$/g })
    expect(orders({ order_id: 'ORD-1' }, ctx)).toMatchObject({ ok: false })
    // A global pattern must not carry `lastIndex` from one call to the next.
    expect(orders({ order_id: 'ORD-1' }, ctx)).toMatchObject({ ok: false })
    expect(orders({ message_id: 'webhostmost-outlook-1' }, ctx)).toEqual({ ok: true })
  })

  it('is marked to check raw input', () => {
    expect(guard.checksRawInput).toBe(true)
  })
})
