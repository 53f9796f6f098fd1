import type { Message } from '../../model/message.ts'
import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import { ReplayBuffer } from '../../events/replay-buffer.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { Decision } from '../../rules/rule.ts'
import type { GateResult } from '../gate-result.ts'
import type { GateInternals } from '../gate-internals.ts'
import { gateRun } from '../run/run-gate.ts'
import { shareDeadline, sharedDeadline } from '../run/run-deadline.ts'
import type { GateStreamEvent, GateStreamOptions } from './gate-stream-event.ts'
import { createGateStream, type GateStream } from './gate-stream.ts'
import { streamingCall, type StreamingCallContext } from './streaming-call.ts'

/** The kind a passthrough stream fails with when a decision needs a retry after content was delivered. */
export const MID_STREAM_NOT_RETRYABLE = FailFastKinds.MidStreamNotRetryable

/**
 * Runs the gate's attempt loop over streaming provider calls (see {@link GateStreamOptions}).
 * Validation, events, rules, feedback and failover are those of `gate.run`; only how text reaches
 * the consumer differs by mode. With `stream` content guards, every mode delivers only what their
 * held-back window released, and the result's text is that text (after the `output` guards).
 */
export function streamGate<T>(g: GateInternals<T>, request: ModelRequest, options: GateStreamOptions, messages: readonly Message[]): GateStream<T> {
  const { mode = 'passthrough', ...runOptions } = options
  const shared = sharedDeadline(options)
  if (shared !== undefined) shareDeadline(runOptions, shared)
  const subject = new ReplayBuffer<GateStreamEvent<T>>()
  // The attempt whose output the consumer was last shown (0: none, or it was discarded).
  let shown = 0
  // Incremental checks only where the JSON Schema *is* the validator (not a Standard Schema's export).
  const checkable = options.validateOutput !== false && (g.schema?.vendor === 'typebox' || g.schema?.vendor === 'json-schema') ? g.schema : undefined
  const ctx: StreamingCallContext<T> = {
    mode,
    events: g.events,
    schema: checkable,
    repair: g.repair,
    emit: (event) => {
      shown = event.type === 'discarded' ? 0 : event.attempt
      subject.next(event)
    },
    delivered: false,
    buffered: new Map(),
    providers: g.providers,
    call: g.call,
    guards: g.streamGuards,
  }
  const run = gateRun(g, request, runOptions, {
    call: streamingCall(ctx),
    ...(mode === 'passthrough'
      ? {
          // A run the caller aborted ends `aborted` in every mode: nothing was left to retry.
          guardDecision: (decision: Decision, kind: string) =>
            ctx.delivered && decision !== 'ok' && kind !== FailFastKinds.Aborted
              ? { decision: 'fail-fast' as const, kind: MID_STREAM_NOT_RETRYABLE }
              : undefined,
        }
      : {}),
  }).run(messages)
  const result: Promise<GateResult<T>> = run.then(
    (r) => {
      const attempt = r.lastAttempt.attempt
      if (mode === 'buffer') {
        // Only the validated answer is delivered: its chunks when they spell exactly it, else its text whole.
        const chunks = r.fromFallback ? undefined : ctx.buffered.get(attempt)
        const spelled = chunks !== undefined && chunks.join('') === r.response.content ? chunks : undefined
        for (const text of spelled ?? (r.response.content === '' ? [] : [r.response.content])) subject.next({ type: 'text', text, attempt })
      } else if (r.fromFallback) {
        // The fallback's answer never streamed: delivered whole, as in buffer mode, after the rejected attempt it replaces.
        if (shown !== 0) subject.next({ type: 'discarded', attempt: shown })
        if (r.response.content !== '') subject.next({ type: 'text', text: r.response.content, attempt })
      }
      subject.next({ type: 'result', result: r, attempt })
      subject.complete()
      return r
    },
    (error: unknown) => {
      subject.error(error)
      throw error
    },
  )
  // The error reaches consumers through the iterator and the observable; `result` may go unread.
  result.catch(() => undefined)
  return createGateStream(subject, result)
}
