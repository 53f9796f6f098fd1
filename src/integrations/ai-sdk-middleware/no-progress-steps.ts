import { assertArray, assertObject } from '../../model/argument-checks.ts'
import type { Observable } from 'rxjs'
import { emitNoProgress } from '../../agent/no-progress/emit-no-progress.ts'
import { withheldTools } from '../../agent/no-progress/host-ladder.ts'
import { NoProgressDetector } from '../../agent/no-progress/no-progress-detector.ts'
import { NO_PROGRESS_CHECKS, type NoProgressOptions, resolved } from '../../agent/no-progress/no-progress-options.ts'
import type { NoProgressVerdict } from '../../agent/no-progress/no-progress-verdict.ts'
import type { ProgressEvent, ProgressTurn } from '../../agent/no-progress/progress-turn.ts'
import { EventHub } from '../../events/event-hub.ts'
import type { GateEvent, GateEventMap, GateEventName } from '../../events/event-map.ts'
import { newRunId } from '../../events/run-id.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import type { Usage } from '../../model/usage.ts'

/** What the helpers read of an AI SDK step (`ai` 6 and 7 alike): its content parts and its usage. */
export interface StepLike {
  readonly content: readonly object[]
  readonly usage?: { readonly inputTokens?: number | undefined; readonly outputTokens?: number | undefined }
}

/** What the helpers read of a message of `prepareStep` (enough to find the nudge they added). */
export interface MessageLike {
  readonly role: string
  readonly providerOptions?: Readonly<Record<string, unknown>> | undefined
}

/** `prepareStep`'s answer: the forced change or the nudge for this step only (`M` the SDK's messages, `N` the tool names). */
export interface NoProgressPrepared<M extends MessageLike = MessageLike, N extends string = string> {
  toolChoice?: 'none'
  activeTools?: N[]
  messages?: M[]
}

/** The helpers of {@link noProgressSteps}: pass `stopWhen` and `prepareStep` to `generateText`, `streamText` or an `Agent`. */
export interface NoProgressSteps<N extends string = string> {
  /** Stops the loop (as `isStepCount` does) on the ladder's `stop` rung; the result stands, `no_progress` says why. */
  readonly stopWhen: (options: { readonly steps: readonly StepLike[] }) => boolean
  /**
   * Sends the nudge with the next step only (a message it adds, and takes out again on the step after),
   * and the forced change: `activeTools` without the looping tools, or `toolChoice: 'none'`.
   */
  readonly prepareStep: <M extends MessageLike>(options: {
    readonly steps: readonly StepLike[]
    readonly messages: readonly M[]
  }) => NoProgressPrepared<M, N> | undefined
  /** Subscribes to `no_progress`; returns the unsubscribe function. */
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void
  readonly events$: Observable<GateEvent>
}

/** Options of {@link noProgressSteps}: the ladder's, and the names of the loop's tools. */
export interface NoProgressStepsOptions<N extends string = string> extends NoProgressOptions {
  /** Every tool of the loop, so the forced change can list the others in `activeTools`. */
  readonly tools?: readonly N[]
}

const NO_PROGRESS_STEPS = optionsContract<NoProgressStepsOptions>('noProgressSteps', {
  ...NO_PROGRESS_CHECKS,
  tools: option.where('an array of tool names', (v) => Array.isArray(v) && Array.from(v).every((n) => typeof n === 'string')),
})

// The mark on the nudge message this helper adds, so the next step takes it out.
const MARK = 'reliabilityGate'

/**
 * The no-progress ladder as AI SDK loop control, for a `generateText`/`streamText` loop without the
 * middleware: the same detector and thresholds as the Agent's loop over the steps (with each step's
 * usage, so `no_progress` reports the tokens spent since progress stopped). `tools` names the
 * loop's tools (the forced change lists the others in `activeTools`); without it the forced step
 * gets `toolChoice: 'none'`.
 *
 * @example
 * const loop = noProgressSteps({ tools: Object.keys(tools) })
 * loop.on('no_progress', (e) => log.warn(e))
 * await generateText({ model, tools, stopWhen: [isStepCount(50), loop.stopWhen], prepareStep: loop.prepareStep, prompt })
 */
export function noProgressSteps<N extends string = string>(given?: NoProgressStepsOptions<N>): NoProgressSteps<N> {
  const { tools, ...rest } = NO_PROGRESS_STEPS.check(given) as NoProgressStepsOptions<N>
  const settings = resolved(rest)
  const events = new EventHub()
  // One verdict per step, whoever asks first (`stopWhen` and `prepareStep` see the same steps).
  const verdicts = new WeakMap<object, { readonly verdict: NoProgressVerdict | undefined }>()
  const runIds = new WeakMap<object, string>()
  const verdictOf = (steps: readonly StepLike[]): NoProgressVerdict | undefined => {
    const last = steps.at(-1)
    if (last === undefined) return undefined
    const known = verdicts.get(last)
    if (known !== undefined) return known.verdict
    const detector = new NoProgressDetector(settings)
    let verdict: NoProgressVerdict | undefined
    for (const step of steps) verdict = detector.observe(stepTurn(step))
    verdicts.set(last, { verdict })
    const first = steps[0] as object
    const runId = runIds.get(first) ?? newRunId()
    runIds.set(first, runId)
    if (verdict !== undefined) emitNoProgress({ events, runId, host: 'ai-sdk' }, verdict)
    return verdict
  }
  return {
    stopWhen: (options) => verdictOf(stepsOf(options, 'stopWhen'))?.step === 'stop',
    prepareStep: <M extends MessageLike>(options: {
      readonly steps: readonly StepLike[]
      readonly messages: readonly M[]
    }): NoProgressPrepared<M, N> | undefined => {
      const verdict = verdictOf(stepsOf(options, 'prepareStep'))
      const messages = options.messages
      assertArray(messages, 'noProgressSteps.prepareStep: options.messages', 'an array of messages')
      const marked = messages.some((m) => m.providerOptions?.[MARK] !== undefined)
      const kept = marked ? messages.filter((m) => m.providerOptions?.[MARK] === undefined) : undefined
      if (verdict === undefined || verdict.step === 'stop') return kept === undefined ? undefined : { messages: kept }
      // A user message of every AI SDK version's prompt shape, marked so the next step takes it out.
      const nudge = { role: 'user', content: [{ type: 'text', text: verdict.message }], providerOptions: { [MARK]: { ephemeral: true } } } as MessageLike as M
      const prepared: NoProgressPrepared<M, N> = { messages: [...(kept ?? messages), nudge] }
      if (verdict.forced === undefined) return prepared
      const withhold = withheldTools(verdict)
      const active = (tools ?? []).filter((t) => !withhold.includes(t))
      if (active.length === 0 || tools === undefined) prepared.toolChoice = 'none'
      else prepared.activeTools = active
      return prepared
    },
    on: (name, listener) => events.on(name, listener),
    events$: events.events$,
  }
}

/** One step as the detector reads it: its text, its calls with the errors their results carry, its usage. */
function stepTurn(step: StepLike): ProgressTurn {
  const parts = (Array.isArray(step.content) ? step.content : []) as readonly { readonly type: string; readonly [key: string]: unknown }[]
  const errors = new Map<unknown, string>()
  for (const p of parts) if (p.type === 'tool-error') errors.set(p['toolCallId'], errorText(p['error']))
  const events: ProgressEvent[] = []
  const text = parts.flatMap((p) => (p.type === 'text' && typeof p['text'] === 'string' ? [p['text']] : [])).join('')
  if (text !== '') events.push({ kind: 'text', text })
  for (const p of parts) {
    if (p.type !== 'tool-call' || typeof p['toolName'] !== 'string') continue
    const error = errors.get(p['toolCallId'])
    events.push(error === undefined ? { kind: 'call', tool: p['toolName'], args: p['input'] } : { kind: 'call', tool: p['toolName'], args: p['input'], error })
  }
  const usage = usageOf(step.usage)
  return usage === undefined ? { events } : { events, usage }
}

function usageOf(usage: StepLike['usage']): Usage | undefined {
  const input = usage?.inputTokens
  const output = usage?.outputTokens
  if (typeof input !== 'number' || typeof output !== 'number' || !Number.isFinite(input) || !Number.isFinite(output)) return undefined
  return { inputTokens: input, outputTokens: output }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return 'error'
  }
}

/** The steps the AI SDK hands `hook` (`{ steps, ... }`), checked: a caller's `null` gets a TypeError naming the hook, not a destructuring crash. */
function stepsOf(options: unknown, hook: string): readonly StepLike[] {
  assertObject(options, `noProgressSteps.${hook}: options`, '{ steps, ... } (what the AI SDK passes)')
  const steps = (options as { readonly steps?: unknown }).steps
  assertArray(steps, `noProgressSteps.${hook}: options.steps`, 'an array of steps')
  return steps as readonly StepLike[]
}
