import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from 'typebox'
import { afterAll, describe, expect, it } from 'vitest'
import { Agent, type ApprovalError, isApprovalError, isApprovalPendingError, memorySessionStore, type SessionStore, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import { approvalAgent, refundCall } from '../approval/support/approval-agent.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-hostile-approval-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const STORES: readonly (readonly [string, () => SessionStore])[] = [
  ['memory', () => memorySessionStore()],
  ['SQLite', () => sqliteSessionStore({ path: join(dir, `s${++n}.db`) })],
]

async function settle(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (v) => ({ resolved: v }),
    (e: unknown) => e,
  )
}
async function refusal(call: Promise<unknown>): Promise<ApprovalError> {
  const error = await settle(call)
  if (!isApprovalError(error)) throw new Error(`not an ApprovalError: ${String((error as { resolved?: unknown }).resolved ?? error)}`)
  return error
}

for (const [name, makeStore] of STORES) {
  describe(`Approval records edited behind the ${name} store`, () => {
    /** A run paused on refund {order: 42, amount: 1000} (approval asked above 50); its record edited by `edit`. */
    async function pausedAndEdited(edit: (record: Record<string, any>) => void, extraTool = false) {
      const store = makeStore()
      const slots = store.approvals as NonNullable<SessionStore['approvals']>
      const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 1000 }), 'refunded'], {
        sessions: store,
        needsApproval: ({ amount }) => amount > 50,
      })
      const wipes: unknown[] = []
      const wipe = tool({
        name: 'wipe',
        description: 'Wipes an account',
        input: Type.Object({ order: Type.Integer(), amount: Type.Number() }),
        execute: (args) => {
          wipes.push(args)
          return 'wiped'
        },
      })
      const built = extraTool
        ? Agent.create({ provider: scripted([refundCall({ order: 42, amount: 1000 }), 'refunded']), model: 'm', name: 'refunds', sessions: store })
            .tool(wipe)
            .tool(
              tool({
                name: 'refund',
                description: 'Refund an order',
                input: Type.Object({ order: Type.Integer(), amount: Type.Number() }),
                needsApproval: true,
                execute: (args) => {
                  effects.runs.push({ args, key: undefined })
                  return 'ok'
                },
              }),
            )
            .build()
        : agent
      const session = await built.session('customer-1')
      const error = await settle(session.run('refund order 42'))
      if (!isApprovalPendingError(error)) throw new Error('the run did not pause')
      const { approval } = error
      const slot = await slots.read('customer-1', approval.approvalId)
      if (slot === undefined) throw new Error('no record')
      const record = JSON.parse(slot.body) as Record<string, any>
      edit(record)
      expect(await slots.swap('customer-1', approval.approvalId, slot.rev, JSON.stringify(record))).toBe(true)
      return { session, approval, effects, wipes }
    }

    it('refuses a record whose arguments were edited (to ones needing no approval) as corrupt-record, never running them', async () => {
      const { session, approval, effects } = await pausedAndEdited((r) => {
        r.pending.args = { order: 666, amount: 10 }
      })
      expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('corrupt-record')
      expect(effects.runs).toEqual([])
    })

    it('refuses a record whose tool name was edited to a tool needing no approval as corrupt-record, never running it', async () => {
      const { session, approval, wipes, effects } = await pausedAndEdited((r) => {
        r.pending.tool = 'wipe'
        for (const c of r.run.response.toolCalls) c.name = 'wipe'
        for (const c of r.run.calls) c.name = 'wipe'
      }, true)
      expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('corrupt-record')
      expect(wipes).toEqual([])
      expect(effects.runs).toEqual([])
    })

    it('refuses a record whose expiry was pushed past what approvalTimeoutMs allows (or before its request) as corrupt-record', async () => {
      for (const expiresAt of [(r: Record<string, any>) => r.pending.requestedAt + 2 ** 31, (r: Record<string, any>) => r.pending.requestedAt - 1]) {
        const { session, approval, effects } = await pausedAndEdited((r) => {
          r.pending.expiresAt = expiresAt(r)
        })
        expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
        expect(effects.runs).toEqual([])
      }
    })

    it('refuses a record with a call slipped in before the paused one as corrupt-record, never running either', async () => {
      const { session, approval, effects } = await pausedAndEdited((r) => {
        // A forged call needing no approval, before the paused one: the paused call is no longer the one after those settled.
        const paused = r.run.response.toolCalls[0]
        r.run.response.toolCalls = [{ ...paused, id: 'slipped', args: { order: 666, amount: 10 } }, paused]
      })
      expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('corrupt-record')
      expect(effects.runs).toEqual([])
    })

    it.each([
      [
        'a tool call entry of an earlier turn',
        (r: Record<string, any>) => r.run.calls.push(JSON.parse('{"id":"x","name":"refund","status":"ok","args":{"__proto__":{"polluted":true}}}')),
      ],
      [
        'an earlier tool turn',
        (r: Record<string, any>) =>
          r.run.turns.push(JSON.parse('{"role":"assistant","content":"","toolCalls":[{"id":"x","name":"refund","args":{"__proto__":{"polluted":true}}}]}'), {
            role: 'tool',
            content: 'ok',
            toolCallId: 'x',
          }),
      ],
    ])('refuses a record holding arguments with a __proto__ key in %s as corrupt-record, handing them to nobody', async (_where, edit) => {
      const { session, approval, effects } = await pausedAndEdited(edit)
      expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('corrupt-record')
      expect(effects.runs).toEqual([])
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    })

    it('refuses a record whose digest was recomputed for edited arguments (the id no longer binds it) as corrupt-record', async () => {
      const { argsDigest } = await import('../../src/index.ts')
      const { session, approval, effects } = await pausedAndEdited((r) => {
        r.pending.args = { order: 666, amount: 10 }
        r.pending.argsDigest = argsDigest('refund', { order: 666, amount: 10 })
      })
      expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('corrupt-record')
      expect(effects.runs).toEqual([])
    })
  })
}
