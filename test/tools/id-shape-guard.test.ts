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
