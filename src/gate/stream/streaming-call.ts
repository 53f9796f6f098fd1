import type { EventHub } from '../../events/event-hub.ts'
import { eventTags } from '../../events/event-tags.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import { IncrementalValidator, type StreamViolation } from '../../validation/stream/index.ts'
import type { ResponseCall } from '../../policies/chain-attempt.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { abortedResponse, abortedUsage } from './aborted-response.ts'
import { consumeProviderStream } from './consume-provider-stream.ts'
import type { GateStreamEvent, StreamMode } from './gate-stream-event.ts'
import type { ContentGuard } from '../../validation/guards/index.ts'
import { markDelivered, stopStreamedAnswer } from '../answer-guard/answer-guard-stop.ts'
import { gateGuardReport } from '../answer-guard/gate-guard-report.ts'
import { HeldText } from './held-text.ts'

/** What the streaming call shares with the stream that owns it. */
export interface StreamingCallContext<T> {
  readonly mode: StreamMode
  readonly events: EventHub
  /** Checked incrementally in progressive mode (TypeBox and JSON Schema only). */
  readonly schema: CompiledSchema<T> | undefined
  readonly repair: boolean
  readonly emit: (event: GateStreamEvent<T>) => void
  /** Set once any content reached the consumer (passthrough arbitration). */
  delivered: boolean
  /** Buffer mode: each attempt's text, delivered once an attempt is accepted. */
  readonly buffered: Map<number, string[]>
  /** The gate's providers, indexed by `ctx.providerIdx`. */
  readonly providers: readonly ResolvedProvider[]
  /** The gate's plain provider call, for a provider that cannot stream. */
  readonly call: ResponseCall
  /** The `stream` content guards: each attempt's text is held back by their lookback and screened before it goes on. */
  readonly guards: readonly ContentGuard[]
}

/** One streamed attempt behind the `stream` guards: the stream's context, the attempt's, the chain's attempt (where a guard's stop is recorded) and the held text. */
interface GuardedAttempt<T> {
  readonly ctx: StreamingCallContext<T>
  readonly attemptCtx: Parameters<ResponseCall>[0]
  readonly attempt: object
  readonly held: HeldText
}

/**
 * The end of the attempt chain for `gate.stream`: consumes `provider.stream()` (or `complete()`
 * when a provider cannot stream), forwards text as the mode says, and returns the assembled response
 * for the gate's normal validation. Chunks are scoped per attempt: nothing of one attempt is ever
 * joined to another's. With `stream` guards, text goes on only as their window releases it, and
 * the answer the gate validates is the released text (what the consumer got); a guard's stop ends
 * the provider's stream and fails the attempt (see `answerGuardStage`).
 */
export function streamingCall<T>(ctx: StreamingCallContext<T>): ResponseCall {
  let lastEmitted = 0
  return async function streamProvider(attemptCtx, chainAttempt): Promise<ModelResponse> {
    const { attempt, request } = attemptCtx
    const entry = ctx.providers[attemptCtx.providerIdx] as ResolvedProvider
    // A new attempt means the previous one was rejected: tell consumers to drop its partials.
    if (ctx.mode === 'progressive' && lastEmitted !== 0 && lastEmitted !== attempt) ctx.emit({ type: 'discarded', attempt: lastEmitted })
    lastEmitted = 0
    const validator = ctx.mode === 'progressive' && ctx.schema?.jsonSchema !== undefined ? new IncrementalValidator(ctx.schema.jsonSchema) : undefined
    let text = ''
    let response: unknown
    let ended = false
    let reported: unknown
    let violation: StreamViolation | undefined

    const deliver = (piece: string): 'continue' | 'stop' => {
      switch (ctx.mode) {
        case 'buffer': {
          const list = ctx.buffered.get(attempt) ?? []
          list.push(piece)
          ctx.buffered.set(attempt, list)
          return 'continue'
        }
        case 'passthrough':
          ctx.delivered = true
          markDelivered(chainAttempt)
          ctx.emit({ type: 'text', text: piece, attempt })
          return 'continue'
        case 'progressive':
          lastEmitted = attempt
          markDelivered(chainAttempt)
          ctx.emit({ type: 'text', text: piece, attempt })
          if (validator === undefined) return 'continue'
          violation = validator.push(piece)
          if (validator.takeChanged()) ctx.emit({ type: 'partial', value: structuredClone(validator.partial), attempt })
          return violation === undefined ? 'continue' : 'stop'
      }
    }
    const held = ctx.guards.length === 0 ? undefined : heldText(ctx, attemptCtx, request.signal, deliver)
    const guarded: GuardedAttempt<T> | undefined = held === undefined ? undefined : { ctx, attemptCtx, attempt: chainAttempt, held }
    const onText = (piece: string): 'continue' | 'stop' => {
      text += piece
      if (held === undefined) return deliver(piece)
      held.push(piece)
      return held.stop === undefined && violation === undefined ? 'continue' : 'stop'
    }

    const provider = entry.provider
    if (provider.stream === undefined) {
      const response = await ctx.call(attemptCtx, chainAttempt)
      // A malformed answer is the gate's to report; only text is forwarded here.
      const content: unknown = (response as { content?: unknown } | null | undefined)?.content
      if (typeof content === 'string' && content !== '') onText(content)
      if (guarded === undefined) return response
      return (await released(guarded, response, text, await guarded.held.end())) as ModelResponse
    }
    const streaming = provider as typeof provider & { stream: NonNullable<typeof provider.stream> }
    const how = await consumeProviderStream(streaming, request, (chunk) => {
      if (chunk.type === 'usage') reported = chunk.usage
      else if (chunk.type === 'done') {
        // Shape-checked by the gate like any answer: a `done` with a malformed response is no answer.
        ended = true
        response = chunk.response
      } else if (chunk.text !== '') return onText(chunk.text)
      return 'continue'
    }).catch((error: unknown) => {
      // The attempt failed: what its guards still hold is never delivered (not after a retry's text).
      held?.abandon()
      throw error
    })
    // A stream that sent its whole answer in its `done` chunk, without one text delta: its text goes on as a complete() answer's does.
    if (ended && text === '') {
      const content: unknown = (response as { content?: unknown } | null | undefined)?.content
      if (typeof content === 'string' && content !== '') onText(content)
    }
    if (guarded !== undefined) {
      const raw = text
      text = await guarded.held.end()
      // The deadline (or the run's abort) cut the guards short: the attempt ends as that says.
      if (request.signal?.aborted === true) throw request.signal.reason
      if (guarded.held.stop !== undefined) stopStreamedAnswer(chainAttempt, { ...guarded.held.stop, surface: 'stream' })
      else if (ended) response = await released(guarded, response, raw, text)
    }
    if (how === 'stopped' && violation !== undefined && validator !== undefined && ctx.schema !== undefined) {
      if (ctx.events.has('stream_aborted')) {
        // The full length of a stream that was cut is unknown, hence no share here.
        ctx.events.emit('stream_aborted', {
          runId: attemptCtx.runId,
          ...eventTags(attemptCtx.turn, attemptCtx.metadata),
          attempt,
          path: violation.path,
          reason: violation.reason,
          consumedChars: violation.consumedChars,
          consumedShare: undefined,
        })
      }
      const cut = { raw: text, partial: validator.partial, violation, usage: abortedUsage(request, text.length, reported) }
      return await abortedResponse(cut, ctx.schema, ctx.repair)
    }
    return (ended ? response : endedWithoutDone(request, text, reported)) as ModelResponse
  }
}

/** One attempt's text behind the context's `stream` guards, reported as the run's `guard_verdict` events. */
function heldText<T>(
  ctx: StreamingCallContext<T>,
  attemptCtx: Parameters<ResponseCall>[0],
  signal: AbortSignal | undefined,
  deliver: (text: string) => unknown,
): HeldText {
  const report = gateGuardReport(ctx.events, attemptCtx.runId, eventTags(attemptCtx.turn, attemptCtx.metadata))
  return new HeldText({ guards: ctx.guards, signal, report, deliver })
}

/**
 * The answer as the stream guards released it (`releasedText`, out of the `raw` text that
 * streamed): its content is the released text when it is the text that streamed (the usual case).
 * A final content other than the streamed text (a provider whose last word differs) is screened
 * whole, without delivering it, before the gate reads it.
 */
async function released<T>(guarded: GuardedAttempt<T>, response: unknown, raw: string, releasedText: string): Promise<unknown> {
  const { held, attempt } = guarded
  if (held.stop !== undefined) {
    stopStreamedAnswer(attempt, { ...held.stop, surface: 'stream' })
    return response
  }
  if (typeof response !== 'object' || response === null) return response
  const content: unknown = (response as { content?: unknown }).content
  if (typeof content !== 'string' || content === releasedText) return response
  if (content === raw) return { ...response, content: releasedText }
  const whole = heldText(guarded.ctx, guarded.attemptCtx, guarded.attemptCtx.request.signal, () => undefined)
  whole.push(content)
  const screened = await whole.end()
  if (whole.stop !== undefined) stopStreamedAnswer(attempt, { ...whole.stop, surface: 'stream' })
  return { ...response, content: screened }
}

/** A stream that ended without its `done` chunk: the text received, usage estimated. */
function endedWithoutDone(request: ModelRequest, text: string, reported: unknown): ModelResponse {
  return { content: text, toolCalls: [], usage: abortedUsage(request, text.length, reported), stopReason: 'other' }
}
