import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import {
  Agent,
  type ApprovalError,
  type ApprovalPendingError,
  argsDigest,
  isApprovalError,
  isApprovalPendingError,
  memorySessionStore,
  type SessionStore,
  tool,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { PGlite } from '@electric-sql/pglite'
import { postgresSessionStore } from '../../src/postgres.ts'
import { redisSessionStore } from '../../src/redis.ts'
import { pgliteQueryable } from '../sessions/support/store-backends.ts'
import { sqliteSessionStore } from '../../src/sqlite.ts'
import { useRedis } from '../redis/support/use-redis.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { approvalAgent, RefundInput, refundCall } from './support/approval-agent.ts'

/** A suite: `describe`, or one that needs something from outside the project. */
type Suite = (title: string, body: () => void) => void

const redis = useRedis()
const dir = mkdtempSync(join(tmpdir(), 'rg-approval-'))
let pglite: PGlite | undefined
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await pglite?.close()
})
/** One PGlite for the file, made at first use; each store on a table of its own. */
const postgres = (): SessionStore => {
  pglite ??= new PGlite()
  return postgresSessionStore(pgliteQueryable(pglite), { table: `approvals_${++n}` })
}
afterEach(() => {
  vi.useRealTimers()
})

let n = 0
const STORES: readonly (readonly [string, () => SessionStore, Suite])[] = [
  ['memory', () => memorySessionStore(), describe],
  ['SQLite', () => sqliteSessionStore({ path: join(dir, `s${++n}.db`) }), describe],
  ['Redis', () => redisSessionStore(redis.client, { keyPrefix: `rg:approval:${++n}:` }), describeWith(redisServer)],
  ['PostgreSQL', postgres, describe],
]

/** The pending approval the run paused on. */
async function paused(run: Promise<unknown>): Promise<ApprovalPendingError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isApprovalPendingError(error)) throw new Error(`the run did not pause: ${String(error)}`)
  return error
}

async function refusal(call: Promise<unknown>): Promise<ApprovalError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isApprovalError(error)) throw new Error(`not an ApprovalError: ${String(error)}`)
  return error
}

for (const [name, makeStore, suite] of STORES) {
  suite(`Session approvals on the ${name} store`, () => {
    it('pauses a call that needs approval, then runs it once with its idempotency key when approved', async () => {
      const { agent, effects, events, order } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: makeStore() })
      const session = await agent.session('customer-1')
      const pause = await paused(session.run('refund order 42', { metadata: { tenant: 't1', big: 1n } }))
      const { approval } = pause
      // The approval names the call; the run's metadata is not part of it (nor stored with it).
      expect(Object.keys(approval).sort()).toEqual(
        ['approvalId', 'runId', 'sessionId', 'agent', 'tool', 'callId', 'turn', 'argsDigest', 'args', 'requestedAt', 'expiresAt'].sort(),
      )
      expect(approval.tool).toBe('refund')
      expect(approval.args).toEqual({ order: 42, amount: 10 })
      expect(approval.argsDigest).toBe(argsDigest('refund', { amount: 10, order: 42 }))
      expect(approval.sessionId).toBe('customer-1')
      expect(effects.runs).toEqual([])
      // Nothing was committed while paused.
      expect(session.history).toEqual([])
      expect(await session.approve(approval.approvalId, { approved: true, argsDigest: approval.argsDigest })).toEqual({
        approvalId: approval.approvalId,
        outcome: 'approved',
      })
      const result = await session.resume(approval.approvalId)
      expect(result.text).toBe('refunded')
      expect(result.runId).toBe(approval.runId)
      expect(effects.runs).toEqual([{ args: { order: 42, amount: 10 }, key: `${approval.runId}:1:call_refund` }])
      expect(result.functionsCalled.map((c) => c.status)).toEqual(['ok'])
      // The exchange is committed whole, once: the user's message, the call and its result, the answer.
      expect(session.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
      // approval_decided comes before the decision is acted on (the tool's execute).
      expect(order).toEqual(['approval_requested', 'approval_requested', 'approval_decided', 'execute', 'tool_end'])
      expect(events[2]?.payload).toMatchObject({ approvalId: approval.approvalId, outcome: 'approved', argsDigest: approval.argsDigest })
      expect(Object.isFrozen(events[2]?.payload)).toBe(true)
      // The approval is spent: a second resume is refused, typed.
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('already-resumed')
    })

    it('gives two calls of one turn that repeat an id an approval and a key each: the second runs on its own arguments, after its own approval', async () => {
      const twice = {
        content: '',
        toolCalls: [
          { id: 'dup', name: 'refund', args: { order: 1, amount: 100 } },
          { id: 'dup', name: 'refund', args: { order: 2, amount: 200 } },
        ],
      }
      const { agent, effects } = approvalAgent([twice, 'refunded both'], { sessions: makeStore() })
      const session = await agent.session('customer-dup')
      const first = (await paused(session.run('refund orders 1 and 2'))).approval
      expect([first.callId, first.args]).toEqual(['dup', { order: 1, amount: 100 }])
      await session.approve(first.approvalId, { approved: true })
      // The resumed run runs the first call, then pauses again: the second call is not the paused one, whatever its id.
      const second = (await paused(session.resume(first.approvalId))).approval
      expect([second.callId, second.args]).toEqual(['dup#2', { order: 2, amount: 200 }])
      expect(second.approvalId).not.toBe(first.approvalId)
      expect(effects.runs).toEqual([{ args: { order: 1, amount: 100 }, key: `${first.runId}:1:dup` }])
      await session.approve(second.approvalId, { approved: true })
      expect((await session.resume(second.approvalId)).text).toBe('refunded both')
      expect(effects.runs).toEqual([
        { args: { order: 1, amount: 100 }, key: `${first.runId}:1:dup` },
        { args: { order: 2, amount: 200 }, key: `${first.runId}:1:dup#2` },
      ])
    })

    it('gives the claim back when the resumed run is aborted: another resume goes on and runs the call once', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 7, amount: 3 }), 'refunded'], { sessions: makeStore() })
      const session = await agent.session('customer-abort')
      const { approval } = await paused(session.run('refund order 7'))
      await session.approve(approval.approvalId, { approved: true })
      const controller = new AbortController()
      const aborted = session.resume(approval.approvalId, { signal: controller.signal })
      controller.abort(new Error('client went away'))
      await expect(aborted).rejects.toMatchObject({ kind: 'aborted' })
      expect(effects.runs).toEqual([])
      const result = await session.resume(approval.approvalId)
      expect(result.text).toBe('refunded')
      expect(effects.runs).toEqual([{ args: { order: 7, amount: 3 }, key: `${approval.runId}:1:call_refund` }])
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('already-resumed')
    })

    it('commits a resumed run on the version its pause was computed on, whichever session resumes it', async () => {
      const store = makeStore()
      const { agent } = approvalAgent([refundCall({ order: 9, amount: 3 }), 'meanwhile', 'refunded', refundCall({ order: 9, amount: 3 }), 'other', 'again'], {
        sessions: store,
      })
      const { approval } = await paused((await agent.session('customer-stale')).run('refund order 9'))
      // Another run commits while the first waits for its approval; a session opened afterwards (another process) resumes it.
      await (await agent.session('customer-stale')).run('anything else?')
      const later = await agent.session('customer-stale')
      await later.approve(approval.approvalId, { approved: true })
      expect((await later.resume(approval.approvalId)).session).toEqual({ id: 'customer-stale', version: 2, basedOn: 0, staleBy: 1 })
      // With onConflict 'fail', the same resume commits nothing: its paused turn never saw the exchange committed meanwhile.
      const strict = await agent.session('customer-stale-strict', { onConflict: 'fail' })
      const second = await paused(strict.run('refund order 9'))
      await (await agent.session('customer-stale-strict')).run('anything else?')
      const fresh = await agent.session('customer-stale-strict', { onConflict: 'fail' })
      await fresh.approve(second.approval.approvalId, { approved: true })
      await expect(fresh.resume(second.approval.approvalId)).rejects.toMatchObject({ kind: 'session-conflict', value: 'again' })
      expect((await store.load('customer-stale-strict')).version).toBe(1)
    })

    it('gives the claim back when the resume is aborted as the store records its claim: the next resume goes on at once', async () => {
      const store = makeStore()
      const slots = store.approvals as NonNullable<SessionStore['approvals']>
      const controller = new AbortController()
      // The claim lands in the store; the resume is aborted before it hears the store's answer.
      const swap: typeof slots.swap = async (...args) => {
        const landed = await slots.swap(...args)
        if (args[3].includes('"resuming"') && !controller.signal.aborted) controller.abort(new Error('client went away'))
        return landed
      }
      const { agent, effects } = approvalAgent([refundCall({ order: 8, amount: 3 }), 'refunded'], { sessions: { ...store, approvals: { ...slots, swap } } })
      const session = await agent.session('customer-abort-claim')
      const { approval } = await paused(session.run('refund order 8'))
      await session.approve(approval.approvalId, { approved: true })
      await expect(session.resume(approval.approvalId, { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
      expect(effects.runs).toEqual([])
      await vi.waitFor(async () => expect((await session.resume(approval.approvalId)).text).toBe('refunded'))
      expect(effects.runs).toEqual([{ args: { order: 8, amount: 3 }, key: `${approval.runId}:1:call_refund` }])
    })

    it('keeps its claim while the resumed run goes on past leaseMs: another resume is refused, and the call runs once', async () => {
      vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] })
      const store = makeStore()
      // Counts the store's approval writes, so the test knows when a renewal has landed.
      let swaps = 0
      const approvals = store.approvals as NonNullable<SessionStore['approvals']>
      const counted: SessionStore = new Proxy(store, {
        get(target, key) {
          if (key === 'approvals')
            return { ...approvals, swap: (...args: Parameters<typeof approvals.swap>) => Promise.resolve(approvals.swap(...args)).finally(() => swaps++) }
          const value: unknown = Reflect.get(target, key)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
      let entered: () => void = () => undefined
      const inTool = new Promise<void>((resolve) => (entered = resolve))
      let done: () => void = () => undefined
      const slowTool = new Promise<void>((resolve) => (done = resolve))
      const runs: (string | undefined)[] = []
      const refund = tool({
        name: 'refund',
        description: 'Refund an order',
        input: RefundInput,
        needsApproval: true,
        execute: async (_args, ctx) => {
          runs.push(ctx.idempotencyKey)
          entered()
          await slowTool
          return 'ok'
        },
      })
      const slowAgent = () =>
        Agent.create({ provider: scripted([refundCall({ order: 3, amount: 2 }), 'refunded']), model: 'm', sessions: counted })
          .tool(refund)
          .build()
      const agent = slowAgent()
      const session = await agent.session('customer-slow')
      const { approval } = await paused(session.run('refund order 3'))
      await session.approve(approval.approvalId, { approved: true })
      const leaseMs = 3_000
      const resumed = session.resume(approval.approvalId, { leaseMs })
      await inTool
      // Five renewals' worth of time, each renewal landed before the clock moves on: the lease has long run out but for them.
      for (let i = 0; i < 5; i++) {
        const before = swaps
        await vi.advanceTimersByTimeAsync(leaseMs / 3)
        await vi.waitFor(() => expect(swaps).toBeGreaterThan(before))
      }
      const other = await (await slowAgent().session('customer-slow')).resume(approval.approvalId).catch((e: unknown) => e)
      expect(other).toMatchObject({ kind: 'already-claimed' })
      done()
      expect((await resumed).text).toBe('refunded')
      expect(runs).toEqual([`${approval.runId}:1:call_refund`])
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('already-resumed')
    })

    it('tells the model of a rejection (its reason) and never runs the call', async () => {
      const { agent, provider, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'I could not refund it.'], { sessions: makeStore() })
      const session = await agent.session('customer-2')
      const { approval } = await paused(session.run('refund order 42'))
      await session.approve(approval.approvalId, { approved: false, reason: 'refunds above $5 need a manager' })
      const result = await session.resume(approval.approvalId)
      expect(effects.runs).toEqual([])
      expect(result.functionsCalled[0]).toMatchObject({ status: 'approval-rejected', intercepted: true })
      const told = provider.requests.at(-1)?.messages.at(-1)
      expect(told).toMatchObject({ role: 'tool', toolCallId: 'call_refund', isError: true })
      expect(told?.content).toMatch(/^REJECTED: .*refunds above \$5 need a manager/)
      expect(result.text).toBe('I could not refund it.')
    })

    it('expires an approval nobody decided in time: the model is told, the call never runs, a late decision is refused', async () => {
      vi.useFakeTimers({ toFake: ['Date'] })
      const { agent, provider, effects, events } = approvalAgent([refundCall({ order: 7, amount: 3 }), 'Still waiting for approval.'], {
        sessions: makeStore(),
        approvalTimeoutMs: 60_000,
      })
      const session = await agent.session('customer-3')
      const { approval } = await paused(session.run('refund order 7'))
      expect(approval.expiresAt - approval.requestedAt).toBe(60_000)
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('not-decided')
      vi.setSystemTime(approval.expiresAt + 1)
      expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('expired')
      const result = await session.resume(approval.approvalId)
      expect(effects.runs).toEqual([])
      expect(result.functionsCalled[0]?.status).toBe('approval-expired')
      expect(provider.requests.at(-1)?.messages.at(-1)?.content).toMatch(/^NOT_APPROVED: /)
      expect(events.find((e) => e.type === 'approval_decided')?.payload['outcome']).toBe('expired')
    })

    it('asks an edited call for its own approval: a decision for other arguments is refused, and the edited call pauses again', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), refundCall({ order: 42, amount: 5 }, 'call_2'), 'refunded 5'], {
        sessions: makeStore(),
      })
      const session = await agent.session('customer-4')
      const first = (await paused(session.run('refund order 42'))).approval
      const edited = argsDigest('refund', { order: 42, amount: 5 })
      expect((await refusal(session.approve(first.approvalId, { approved: true, argsDigest: edited }))).kind).toBe('digest-mismatch')
      await session.approve(first.approvalId, { approved: false, reason: 'refund 5 at most' })
      // The model edits its call after the rejection: the edited arguments pause the run on an approval of their own.
      const second = (await paused(session.resume(first.approvalId))).approval
      expect(second.approvalId).not.toBe(first.approvalId)
      expect(second.argsDigest).toBe(edited)
      expect(second.runId).toBe(first.runId)
      expect(effects.runs).toEqual([])
      // The first approval does not carry over: the second is pending until decided.
      expect((await refusal(session.resume(second.approvalId))).kind).toBe('not-decided')
      await session.approve(second.approvalId, { approved: true, argsDigest: edited })
      const result = await session.resume(second.approvalId)
      expect(result.text).toBe('refunded 5')
      expect(effects.runs.map((r) => r.args)).toEqual([{ order: 42, amount: 5 }])
      expect(result.functionsCalled.map((c) => c.status)).toEqual(['approval-rejected', 'ok'])
    })

    it('claims a decision once and a resume once when they race', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 9, amount: 1 }), 'refunded'], { sessions: makeStore() })
      const session = await agent.session('customer-5')
      const { approval } = await paused(session.run('refund order 9'))
      const decisions = await Promise.allSettled([
        session.approve(approval.approvalId, { approved: true }),
        session.approve(approval.approvalId, { approved: false }),
        session.approve(approval.approvalId, { approved: true }),
      ])
      const won = decisions.filter((d) => d.status === 'fulfilled')
      expect(won).toHaveLength(1)
      for (const d of decisions) if (d.status === 'rejected') expect((d.reason as ApprovalError).kind).toBe('already-decided')
      const resumes = await Promise.allSettled([session.resume(approval.approvalId), session.resume(approval.approvalId), session.resume(approval.approvalId)])
      expect(resumes.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      for (const r of resumes) if (r.status === 'rejected') expect(['already-claimed', 'already-resumed']).toContain((r.reason as ApprovalError).kind)
      const approved = (won[0] as PromiseFulfilledResult<{ outcome: string }>).value.outcome === 'approved'
      expect(effects.runs).toHaveLength(approved ? 1 : 0)
    })

    it('refuses a hostile approval id, an unknown one and a decision that is not one, typed, before anything runs', async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 1, amount: 1 }), 'ok'], { sessions: makeStore() })
      const session = await agent.session('customer-6')
      const { approval } = await paused(session.run('refund order 1'))
      for (const id of [
        '',
        '__proto__',
        `apr_${'G'.repeat(32)}`,
        `${approval.approvalId}x`,
        '../customer-7',
        42,
        null,
        { toString: () => approval.approvalId },
      ]) {
        expect((await refusal(session.approve(id as string, { approved: true }))).kind).toBe('invalid-id')
        expect((await refusal(session.resume(id as string))).kind).toBe('invalid-id')
      }
      expect((await refusal(session.approve(`apr_${'0'.repeat(32)}`, { approved: true }))).kind).toBe('unknown-approval')
      // Another conversation of the same store does not hold this one's approval.
      const other = await agent.session('customer-7')
      expect((await refusal(other.approve(approval.approvalId, { approved: true }))).kind).toBe('unknown-approval')
      for (const decision of [{ approved: 'yes' }, { approved: true, extra: 1 }, { approved: true, argsDigest: 'abc' }, null, []]) {
        expect((await refusal(session.approve(approval.approvalId, decision as never))).kind).toBe('invalid-decision')
      }
      expect(effects.runs).toEqual([])
      // The approval is still pending and can be decided.
      expect((await session.approve(approval.approvalId, { approved: true })).outcome).toBe('approved')
    })

    it('refuses a stored approval edited behind the store (its arguments, its shape) as corrupt-record, running nothing', async () => {
      const store = makeStore()
      const slots = store.approvals as NonNullable<SessionStore['approvals']>
      const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
      const session = await agent.session('customer-8')
      const { approval } = await paused(session.run('refund order 42'))
      const slot = await slots.read('customer-8', approval.approvalId)
      if (slot === undefined) throw new Error('the store holds no approval')
      // Arguments edited in the store: the approval's digest and id name the old ones, so the record is not one the library wrote.
      const record = JSON.parse(slot.body)
      record.pending.args = { order: 42, amount: 1000 }
      expect(await slots.swap('customer-8', approval.approvalId, slot.rev, JSON.stringify(record))).toBe(true)
      expect((await refusal(session.approve(approval.approvalId, { approved: true, argsDigest: approval.argsDigest }))).kind).toBe('corrupt-record')
      expect((await refusal(session.resume(approval.approvalId))).kind).toBe('corrupt-record')
      expect(argsDigest('refund', record.pending.args)).not.toBe(approval.argsDigest)
      expect(effects.runs).toEqual([])
      // A record that is not one the library wrote is refused, typed.
      const edited = await slots.read('customer-8', approval.approvalId)
      for (const body of ['not json', '{"v":2}', JSON.stringify({ ...JSON.parse(edited?.body ?? '{}'), status: 'approved-by-me' })]) {
        const current = await slots.read('customer-8', approval.approvalId)
        await slots.swap('customer-8', approval.approvalId, current?.rev ?? 0, body)
        expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
        expect((await refusal(session.resume(approval.approvalId))).kind).toBe('corrupt-record')
      }
      expect(effects.runs).toEqual([])
    })

    it('stores no rejected tool arguments with a paused run: the calls before the pause keep the arguments that settled them', async () => {
      const store = makeStore()
      const slots = store.approvals as NonNullable<SessionStore['approvals']>
      // Order 0 breaks the schema (minimum 1): rejected, then corrected, in the turn before the one that pauses.
      const first = { content: '', toolCalls: [{ id: 'c0', name: 'refund', args: { order: 0, amount: 1 } }] }
      const { agent } = approvalAgent([first, refundCall({ order: 3, amount: 1 }, 'c0'), refundCall({ order: 4, amount: 2 }), 'ok'], {
        sessions: store,
        needsApproval: ({ order }) => order === 4,
      })
      const session = await agent.session('customer-rejected')
      const { approval } = await paused(session.run('refund orders 3 and 4'))
      const body = (await slots.read('customer-rejected', approval.approvalId))?.body ?? ''
      expect(JSON.parse(body).run.calls).toMatchObject([{ args: { order: 3, amount: 1 }, argsTried: [{ order: 3, amount: 1 }], retryCount: 1 }])
      expect(body).not.toContain('"order":0')
      await session.approve(approval.approvalId, { approved: true })
      expect((await session.resume(approval.approvalId)).functionsCalled.map((c) => c.args)).toEqual([
        { order: 3, amount: 1 },
        { order: 4, amount: 2 },
      ])
    })

    it('refuses a stored pause whose conversation version is no version as corrupt-record, running nothing', async () => {
      const store = makeStore()
      const slots = store.approvals as NonNullable<SessionStore['approvals']>
      const { agent, effects } = approvalAgent([refundCall({ order: 42, amount: 10 }), 'refunded'], { sessions: store })
      const session = await agent.session('customer-10')
      const { approval } = await paused(session.run('refund order 42'))
      for (const basedOn of [-1, 1.5, '0', null]) {
        const slot = await slots.read('customer-10', approval.approvalId)
        const record = JSON.parse(slot?.body ?? '{}')
        expect(record.run.basedOn).toBe(0)
        await slots.swap('customer-10', approval.approvalId, slot?.rev ?? 0, JSON.stringify({ ...record, run: { ...record.run, basedOn } }))
        expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('corrupt-record')
        const edited = await slots.read('customer-10', approval.approvalId)
        await slots.swap('customer-10', approval.approvalId, edited?.rev ?? 0, slot?.body ?? '')
      }
      expect(effects.runs).toEqual([])
    })

    it("erases a conversation's approvals with the conversation", async () => {
      const { agent, effects } = approvalAgent([refundCall({ order: 5, amount: 1 }), 'ok'], { sessions: makeStore() })
      const session = await agent.session('customer-9')
      const { approval } = await paused(session.run('refund order 5'))
      await session.delete()
      expect((await refusal(session.approve(approval.approvalId, { approved: true }))).kind).toBe('unknown-approval')
      expect(effects.runs).toEqual([])
    })
  })
}

describe('Session approvals', () => {
  it('pauses the default session of agent.run and resumes it through the agent', async () => {
    const { agent, effects } = approvalAgent([refundCall({ order: 3, amount: 2 }), 'done'])
    const { approval } = await paused(agent.run('refund order 3'))
    expect(approval.sessionId).toBeUndefined()
    await agent.approve(approval.approvalId, { approved: true })
    expect((await agent.resume(approval.approvalId)).text).toBe('done')
    expect(effects.runs).toHaveLength(1)
    expect(agent.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('asks needsApproval with the validated arguments: false runs at once, a throwing check asks for approval', async () => {
    const asked: unknown[] = []
    const { agent, effects } = approvalAgent([refundCall({ order: 3, amount: 2 }), 'small refund done', refundCall({ order: 4, amount: 500 }), 'x'], {
      needsApproval: (args) => {
        asked.push(args)
        if (args.amount > 100) throw new Error('limits service down')
        return false
      },
    })
    expect(await agent.run('refund order 3')).toBe('small refund done')
    expect(effects.runs).toHaveLength(1)
    await paused(agent.run('refund order 4'))
    expect(asked).toEqual([
      { order: 3, amount: 2 },
      { order: 4, amount: 500 },
    ])
    expect(effects.runs).toHaveLength(1)
  })

  it('asks for approval only once the arguments are valid: invalid ones are retried first, with feedback', async () => {
    const { agent, provider, events } = approvalAgent([refundCall({ order: 0, amount: 10 }), refundCall({ order: 5, amount: 10 }), 'ok'])
    const { approval } = await paused(agent.run('refund order 5'))
    expect(provider.calls).toBe(2)
    expect(approval.args).toEqual({ order: 5, amount: 10 })
    expect(events.filter((e) => e.type === 'approval_requested')).toHaveLength(1)
  })

  it('keeps the calls a turn settled before its pause: each call of the turn runs once, in order, and the turn is committed whole', async () => {
    const both = {
      content: '',
      toolCalls: [
        { id: 'c1', name: 'refund', args: { order: 1, amount: 1 } },
        { id: 'c2', name: 'refund', args: { order: 2, amount: 70 } },
      ],
    }
    const { agent, effects, provider } = approvalAgent([both, 'both refunded'], { needsApproval: ({ amount }) => amount > 50 })
    const { approval } = await paused(agent.run('refund orders 1 and 2'))
    // The first call needed no approval and ran; the second paused the run.
    expect(approval.callId).toBe('c2')
    expect(effects.runs.map((r) => r.args)).toEqual([{ order: 1, amount: 1 }])
    await agent.approve(approval.approvalId, { approved: true })
    const result = await agent.resume(approval.approvalId)
    expect(result.text).toBe('both refunded')
    expect(effects.runs.map((r) => r.args)).toEqual([
      { order: 1, amount: 1 },
      { order: 2, amount: 70 },
    ])
    expect(result.functionsCalled.map((c) => [c.id, c.status])).toEqual([
      ['c1', 'ok'],
      ['c2', 'ok'],
    ])
    // The model was not asked again for the paused turn: one call for the tools, one for the answer.
    expect(provider.calls).toBe(2)
    expect(agent.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant'])
  })

  it('pauses a streamed run the same way, and resumes it', async () => {
    const { agent, effects, events } = approvalAgent([refundCall({ order: 3, amount: 2 }), 'done'])
    const { approval } = await paused(agent.stream('refund order 3').result)
    expect(events[0]?.payload).toMatchObject({ via: 'session', approvalId: approval.approvalId, args: { order: 3, amount: 2 } })
    expect(Object.isFrozen(events[0]?.payload)).toBe(true)
    await agent.approve(approval.approvalId, { approved: true })
    expect((await agent.resume(approval.approvalId)).text).toBe('done')
    expect(effects.runs).toHaveLength(1)
  })

  it('keeps a rejection when the agent that resumes no longer asks for approval', async () => {
    const store = memorySessionStore()
    const first = approvalAgent([refundCall({ order: 3, amount: 2 }), 'x'], { sessions: store })
    const { approval } = await paused((await first.agent.session('c')).run('refund order 3'))
    await (await first.agent.session('c')).approve(approval.approvalId, { approved: false, reason: 'no' })
    // A deploy removed needsApproval: the decision taken on the paused call still stands.
    const second = approvalAgent(['not refunded'], { sessions: store, needsApproval: false })
    const result = await (await second.agent.session('c')).resume(approval.approvalId)
    expect(result.functionsCalled[0]?.status).toBe('approval-rejected')
    expect(second.effects.runs).toEqual([])
  })

  it('hands needsApproval a copy: editing it changes neither the digest nor what the tool runs on', async () => {
    const { agent, effects } = approvalAgent([refundCall({ order: 3, amount: 2 }), 'done'], {
      needsApproval: (args) => {
        args.amount = 1_000_000
        return true
      },
    })
    const { approval } = await paused(agent.run('refund order 3'))
    expect(approval.argsDigest).toBe(argsDigest('refund', { order: 3, amount: 2 }))
    await agent.approve(approval.approvalId, { approved: true })
    await agent.resume(approval.approvalId)
    expect(effects.runs.map((r) => r.args)).toEqual([{ order: 3, amount: 2 }])
  })

  it('refuses a decision whose fields cannot be read, typed', async () => {
    const { agent } = approvalAgent([refundCall({ order: 3, amount: 2 }), 'done'])
    const { approval } = await paused(agent.run('refund order 3'))
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('boom')
        },
      },
    )
    expect((await refusal(agent.approve(approval.approvalId, hostile as never))).kind).toBe('invalid-decision')
  })

  it('reads a decision once: a reason that answers the check short, then long, tells the model the short one', async () => {
    const { agent, provider, effects } = approvalAgent([refundCall({ order: 3, amount: 2 }), 'done'])
    const { approval } = await paused(agent.run('refund order 3'))
    let reads = 0
    const decision = {
      approved: false,
      get reason() {
        reads++
        return reads === 1 ? 'too much' : 'x'.repeat(100_000)
      },
    }
    expect(await agent.approve(approval.approvalId, decision)).toEqual({ approvalId: approval.approvalId, outcome: 'rejected' })
    expect(reads).toBe(1)
    await agent.resume(approval.approvalId)
    expect(effects.runs).toEqual([])
    const told = provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content ?? ''
    expect(told).toContain('too much')
    expect(told.length).toBeLessThan(1_000)
  })

  it('refuses to park a pause in a store that keeps no approvals, typed', async () => {
    const base = memorySessionStore()
    const store: SessionStore = { load: (id) => base.load(id), append: (id, r) => base.append(id, r), delete: (id) => base.delete(id) }
    const { agent, effects } = approvalAgent([refundCall({ order: 3, amount: 2 }), 'done'], { sessions: store })
    const session = await agent.session('c')
    expect((await refusal(session.run('refund order 3'))).kind).toBe('no-approval-store')
    expect(effects.runs).toEqual([])
  })
})
