import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  Agent,
  type ApprovalError,
  type ApprovalPendingError,
  argsDigest,
  isApprovalError,
  isApprovalPendingError,
  isReliabilityFailFastError,
  memorySessionStore,
  type SessionStore,
  tool,
} from '../../src/index.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import { approvalAgent, RefundInput, refundCall } from '../approval/support/approval-agent.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-hostile-approval-in-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const STORES: readonly (readonly [string, () => SessionStore])[] = [
  ['memory', () => memorySessionStore()],
  ['SQLite', () => sqliteSessionStore({ path: join(dir, `s${++n}.db`) })],
]

const settle = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    (v) => ({ resolved: v }),
    (e: unknown) => e,
  )
async function refusal(call: Promise<unknown>): Promise<ApprovalError> {
  const error = await settle(call)
  if (!isApprovalError(error)) throw new Error(`not an ApprovalError: ${String(error)}`)
  return error
}
async function paused(call: Promise<unknown>): Promise<ApprovalPendingError> {
  const error = await settle(call)
  if (!isApprovalPendingError(error)) throw new Error(`the run did not pause: ${String(error)}`)
  return error
}

describe('Tool approval options', () => {
  it('refuses an approvalTimeoutMs of 0, negative, fractional, Infinity, NaN or past 2^31 - 1 ms when the tool is made, naming it', () => {
    for (const approvalTimeoutMs of [0, -1, 1.5, Number.POSITIVE_INFINITY, Number.NaN, 2 ** 31, 2 ** 31 + 1]) {
      let thrown: unknown
      try {
        approvalAgent(['x'], { approvalTimeoutMs })
      } catch (error) {
        thrown = error
      }
      expect(thrown instanceof TypeError || thrown instanceof RangeError, String(approvalTimeoutMs)).toBe(true)
      expect(String((thrown as Error).message)).toContain('approvalTimeoutMs')
    }
  })

  it('ends a run whose needsApproval never settles at runTimeoutMs, running nothing', async () => {
    const { agent, effects } = approvalAgent([refundCall({ order: 1, amount: 1 }), 'done'], { needsApproval: () => new Promise<boolean>(() => {}) })
    const error = await settle(agent.run('refund', { runTimeoutMs: 50 }))
    expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('run-timeout')
    expect(effects.runs).toEqual([])
  }, 3000)

  it('asks for approval when needsApproval throws, and runs the arguments the model sent when needsApproval mutates its copy', async () => {
    const throwing = approvalAgent([refundCall({ order: 1, amount: 1 }), 'done'], {
      needsApproval: () => {
        throw new Error('policy down')
      },
    })
    expect((await paused(throwing.agent.run('refund'))).approval.tool).toBe('refund')
    const mutating = approvalAgent([refundCall({ order: 1, amount: 1 }), 'done'], {
      needsApproval: (args) => {
        ;(args as { amount: number }).amount = 1_000_000
        return false
      },
    })
    await mutating.agent.run('refund')
    expect(mutating.effects.runs.map((r) => r.args)).toEqual([{ order: 1, amount: 1 }])
  })
})

for (const [name, makeStore] of STORES) {
  describe(`Session approvals on the ${name} store, hostile calls`, () => {
    it('refuses approval ids that are no approval id (unicode, newlines, __proto__, 10 kB, not a string) as invalid-id', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 1, amount: 5 }), 'ok'], { sessions: makeStore() })
      const session = await agent.session('c-ids')
      const { approval } = await paused(session.run('refund'))
      for (const id of [
        'apr_é',
        `${approval.approvalId}\n`,
        '__proto__',
        'constructor',
        'x'.repeat(10_000),
        `apr_${'0'.repeat(31)}\u0660`,
        42,
        null,
        undefined,
      ]) {
        expect((await refusal(session.approve(id as string, { approved: true }))).kind).toBe('invalid-id')
        expect((await refusal(session.resume(id as string))).kind).toBe('invalid-id')
      }
      expect(effects.runs).toEqual([])
      expect((await session.approve(approval.approvalId, { approved: true })).outcome).toBe('approved')
    })

    it('refuses a decision that is no decision (a misspelt key, a 10 kB reason, approved not a boolean, a throwing getter) as invalid-decision', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 1, amount: 5 }), 'ok'], { sessions: makeStore() })
      const session = await agent.session('c-decision')
      const { approval } = await paused(session.run('refund'))
      const getter = Object.defineProperty({}, 'approved', {
        enumerable: true,
        get() {
          throw new Error('boom')
        },
      })
      for (const decision of [
        { aproved: true },
        { approved: true, reason: 'r'.repeat(10_000) },
        { approved: 'yes' },
        null,
        getter,
        { approved: true, argsDigest: 'x' },
      ]) {
        expect((await refusal(session.approve(approval.approvalId, decision as never))).kind).toBe('invalid-decision')
      }
      expect(effects.runs).toEqual([])
      expect((await session.approve(approval.approvalId, { approved: false })).outcome).toBe('rejected')
    })

    it('refuses a decision naming the digest of other arguments as digest-mismatch, leaving the approval pending', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 1, amount: 5 }), 'ok'], { sessions: makeStore() })
      const session = await agent.session('c-digest')
      const { approval } = await paused(session.run('refund'))
      const other = argsDigest('refund', { order: 1, amount: 5000 })
      expect((await refusal(session.approve(approval.approvalId, { approved: true, argsDigest: other }))).kind).toBe('digest-mismatch')
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('not-decided')
      expect(effects.runs).toEqual([])
    })

    it('records one of two concurrent decisions, refusing the other as already-decided, and runs the call once', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 1, amount: 5 }), 'ok'], { sessions: makeStore() })
      const session = await agent.session('c-race')
      const { approval } = await paused(session.run('refund'))
      const decisions = await Promise.all([
        settle(session.approve(approval.approvalId, { approved: true })),
        settle(session.approve(approval.approvalId, { approved: false, reason: 'no' })),
        settle(session.approve(approval.approvalId, { approved: true })),
      ])
      const recorded = decisions.filter((d) => !isApprovalError(d))
      expect(recorded).toHaveLength(1)
      expect(decisions.filter((d) => isApprovalError(d)).map((d) => (d as ApprovalError).kind)).toEqual(['already-decided', 'already-decided'])
      const resumes = await Promise.all([settle(session.resume(approval.approvalId)), settle(session.resume(approval.approvalId))])
      expect(resumes.filter((r) => isApprovalError(r)).map((r) => (r as ApprovalError).kind)).toEqual(['already-claimed'])
      const approved = (recorded[0] as { resolved: { outcome: string } }).resolved.outcome === 'approved'
      expect(effects.runs).toHaveLength(approved ? 1 : 0)
    })

    it('pauses on an answer carrying provider fields JSON cannot write (a cycle, a BigInt), stores none of them, and resumes it', async () => {
      const raw: Record<string, unknown> = { status: 200 }
      raw['self'] = raw
      const usage = { inputTokens: 1, outputTokens: 1 }
      const answers = [
        { ...refundCall({ order: 3, amount: 5 }), usage, stopReason: 'tool_use', raw, requestBytes: 10n },
        { content: 'refunded', toolCalls: [], usage, stopReason: 'end' },
      ]
      // A provider of yours keeping its own fields on the answer (scripted() answers only the format's).
      const provider = { name: 'raw', complete: async () => answers.shift() as never }
      const ran: unknown[] = []
      const refund = tool({ name: 'refund', description: 'Refund', input: RefundInput, needsApproval: true, execute: (args) => ran.push(args) })
      const store = makeStore()
      const session = await Agent.create({ provider, model: 'm', sessions: store }).tool(refund).build().session('c-raw')
      const { approval } = await paused(session.run('refund'))
      expect((await store.approvals?.read('c-raw', approval.approvalId))?.body).not.toContain('"raw"')
      await session.approve(approval.approvalId, { approved: true })
      expect((await session.resume(approval.approvalId)).text).toBe('refunded')
      expect(ran).toEqual([{ order: 3, amount: 5 }])
    })

    it('leaves an approval resumable when a resume is called with an already aborted signal', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 1, amount: 5 }), 'ok'], { sessions: makeStore() })
      const session = await agent.session('c-abort')
      const { approval } = await paused(session.run('refund'))
      await session.approve(approval.approvalId, { approved: true })
      const aborted = await settle(session.resume(approval.approvalId, { signal: AbortSignal.abort(new Error('gone')) }))
      expect(isReliabilityFailFastError(aborted) ? aborted.kind : aborted).toBe('aborted')
      expect(effects.runs).toEqual([])
      expect((await session.resume(approval.approvalId)).text).toBe('ok')
      expect(effects.runs).toHaveLength(1)
    })
  })
}

describe('Session approvals on one SQLite file shared by two store handles (two processes)', () => {
  it('records one decision and claims one resume across the handles, running the call once', async () => {
    const path = join(dir, 'shared.db')
    const first = approvalAgent([refundCall({ order: 9, amount: 5 }), 'ok'], { sessions: sqliteSessionStore({ path }) })
    const second = approvalAgent(['ok'], { sessions: sqliteSessionStore({ path }) })
    const { approval } = await paused((await first.agent.session('shared')).run('refund'))
    const [a, b] = [await first.agent.session('shared'), await second.agent.session('shared')]
    const decisions = await Promise.all([
      settle(a.approve(approval.approvalId, { approved: true })),
      settle(b.approve(approval.approvalId, { approved: true })),
    ])
    expect(decisions.filter((d) => isApprovalError(d)).map((d) => (d as ApprovalError).kind)).toEqual(['already-decided'])
    const resumes = await Promise.all([settle(a.resume(approval.approvalId)), settle(b.resume(approval.approvalId))])
    expect(resumes.filter((r) => isApprovalError(r)).map((r) => (r as ApprovalError).kind)).toEqual(['already-claimed'])
    expect(first.effects.runs.length + second.effects.runs.length).toBe(1)
  })
})
