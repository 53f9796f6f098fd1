import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type ApprovalError, isApprovalError, isApprovalPendingError, memorySessionStore } from '../../src/index.ts'
import { approvalAgent, refundCall } from './support/approval-agent.ts'

type Op = { readonly kind: 'approve'; readonly approved: boolean } | { readonly kind: 'resume' } | { readonly kind: 'expire' }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('approve' as const), approved: fc.boolean() }),
  fc.constant({ kind: 'resume' as const }),
  fc.constant({ kind: 'expire' as const }),
)

/** A paused run: its agent's session, effects and approval. */
async function pausedRun() {
  const steps = [refundCall({ order: 42, amount: 10 }), 'done', 'done']
  const { agent, effects } = approvalAgent(steps, { sessions: memorySessionStore(), approvalTimeoutMs: 1000 })
  const session = await agent.session('c')
  const error = await session.run('refund order 42').catch((e: unknown) => e)
  if (!isApprovalPendingError(error)) throw new Error('the run did not pause')
  return { session, effects, approval: error.approval }
}

const kindOf = (error: unknown): string => (isApprovalError(error) ? (error as ApprovalError).kind : `untyped: ${String(error)}`)

afterEach(() => {
  vi.useRealTimers()
})

describe('Session approvals', () => {
  it('answers any order of decisions, resumes and expiry as the one-decision, one-resume model says, and runs the call at most once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 8 }), async (ops) => {
        vi.useFakeTimers({ toFake: ['Date'] })
        vi.setSystemTime(1_000_000)
        const { session, effects, approval } = await pausedRun()
        let decided: 'approved' | 'rejected' | 'expired' | undefined
        let expired = false
        let resumedWith: string | undefined
        for (const step of ops) {
          if (step.kind === 'expire') {
            vi.setSystemTime(approval.expiresAt + 1)
            expired = true
            continue
          }
          const outcome = await (step.kind === 'approve'
            ? session.approve(approval.approvalId, { approved: step.approved })
            : session.resume(approval.approvalId)
          ).then(
            () => 'ok',
            (e: unknown) => kindOf(e),
          )
          if (step.kind === 'approve') {
            if (decided !== undefined) expect(outcome).toBe('already-decided')
            else if (expired) {
              expect(outcome).toBe('expired')
              decided = 'expired'
            } else {
              expect(outcome).toBe('ok')
              decided = step.approved ? 'approved' : 'rejected'
            }
          } else if (resumedWith !== undefined) expect(outcome).toBe('already-resumed')
          else if (decided === undefined && !expired) expect(outcome).toBe('not-decided')
          else {
            expect(outcome).toBe('ok')
            resumedWith = decided ?? 'expired'
            decided ??= 'expired'
          }
        }
        expect(effects.runs).toHaveLength(resumedWith === 'approved' ? 1 : 0)
        vi.useRealTimers()
      }),
      { numRuns: 60 },
    )
  })

  it('claims one decision and one resume, and runs the call at most once, when they all race', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.boolean(), fc.constant('resume' as const)), { minLength: 1, maxLength: 10 }), async (racers) => {
        const { session, effects, approval } = await pausedRun()
        const settled = await Promise.allSettled(
          racers.map((r) => (r === 'resume' ? session.resume(approval.approvalId) : session.approve(approval.approvalId, { approved: r }))),
        )
        const approves = racers.flatMap((r, i) => (r === 'resume' ? [] : [settled[i]]))
        const resumes = racers.flatMap((r, i) => (r === 'resume' ? [settled[i]] : []))
        expect(approves.filter((s) => s?.status === 'fulfilled').length).toBe(approves.length === 0 ? 0 : 1)
        expect(resumes.filter((s) => s?.status === 'fulfilled').length).toBeLessThanOrEqual(1)
        for (const s of settled)
          if (s.status === 'rejected') expect(kindOf(s.reason)).toMatch(/^(already-decided|already-claimed|already-resumed|not-decided)$/)
        expect(effects.runs.length).toBeLessThanOrEqual(1)
        // A call ran only after a resume that won, on an approval that was approved.
        if (effects.runs.length === 1) expect(resumes.some((s) => s?.status === 'fulfilled')).toBe(true)
      }),
      { numRuns: 60 },
    )
  })
})
