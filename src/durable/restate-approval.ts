import { type ApprovalDecision, approvalSignal, checkDecision } from './approval-decision.ts'

/** What {@link resolveApproval} uses of a Restate workflow's shared context (`WorkflowSharedContext`). */
export interface RestatePromiseContextLike {
  promise<T>(name: string): { resolve(value?: T): PromiseLike<void>; peek(): PromiseLike<T | undefined> }
}

/**
 * Decides a paused tool call's approval from a shared handler of the workflow that runs the agent
 * (over `restatePort(ctx)`): resolves the workflow's durable promise for `approvalId`. Restate
 * completes a promise once, across every process and retry: the first decision is `claimed`, and a
 * later one (another approver, a retry) is not, and answers the decision that won.
 *
 * @example
 * const refunds = restate.workflow({
 *   name: 'refunds',
 *   handlers: {
 *     run: async (ctx: restate.WorkflowContext, order: string) => agent.run(`refund ${order}`, { durable: restatePort(ctx) }),
 *     approve: async (ctx: restate.WorkflowSharedContext, body: { approvalId: string; approved: boolean }) =>
 *       resolveApproval(ctx, body.approvalId, { approved: body.approved }),
 *   },
 * })
 */
export async function resolveApproval(
  ctx: RestatePromiseContextLike,
  approvalId: string,
  decision: ApprovalDecision,
): Promise<{ readonly claimed: boolean; readonly decision: ApprovalDecision | undefined }> {
  const checked = checkDecision('resolveApproval', approvalId, decision)
  if (typeof ctx !== 'object' || ctx === null || typeof ctx.promise !== 'function')
    throw new TypeError('resolveApproval: ctx must be the context of a Restate workflow handler (with promise)')
  const promise = ctx.promise<ApprovalDecision>(approvalSignal(approvalId))
  const earlier = await promise.peek()
  if (earlier !== undefined) return { claimed: false, decision: earlier }
  try {
    await promise.resolve(checked)
    return { claimed: true, decision: checked }
  } catch (error) {
    // Another approver completed it between the peek and the resolve: Restate refused the second completion.
    const won = await promise.peek()
    if (won === undefined) throw error
    return { claimed: false, decision: won }
  }
}
