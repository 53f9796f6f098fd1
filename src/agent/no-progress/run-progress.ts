import type { EventHub } from '../../events/event-hub.ts'
import type { EventTags } from '../../events/event-map.ts'
import type { Message } from '../../model/message.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ToolSpec } from '../../model/tool-call.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import { keepShape } from '../../model/keep-shape.ts'
import { type Usage, ZERO_USAGE } from '../../model/usage.ts'
import type { SettledToolCall } from '../tool-call-run.ts'
import { emitNoProgress, noProgressReason } from './emit-no-progress.ts'
import { NoProgressDetector } from './no-progress-detector.ts'
import { NO_PROGRESS_DEFAULTS, type NoProgressSettings } from './no-progress-options.ts'
import type { ForcedChange, NoProgressVerdict } from './no-progress-verdict.ts'
import type { ProgressEvent } from './progress-turn.ts'

/**
 * The Agent's side of the ladder: feeds each tool turn to the detector, emits `no_progress`, and
 * holds what the next turn is sent with: the ephemeral nudge (never in `#turns`, so never
 * persisted) or the forced change. One per run.
 */
export class RunProgress {
  readonly #settings: NoProgressSettings
  // Made at the first tool turn: a run answered in one turn pays for nothing but this object.
  #detector: NoProgressDetector | undefined
  readonly #events: EventHub
  #usage: Usage = ZERO_USAGE
  #costUsd = 0
  #next: NoProgressVerdict | undefined

  readonly #stop: (reason: string) => Error

  constructor(settings: NoProgressSettings, events: EventHub, stop: (reason: string) => Error) {
    this.#settings = settings
    this.#events = events
    this.#stop = stop
  }

  /** A ladder of placeholders in the shape a run leaves it (a fractional cost, a detector), kept for its hidden class. */
  static witness(): RunProgress {
    const witness = new RunProgress(NO_PROGRESS_DEFAULTS, Object.freeze({}) as EventHub, () => new Error('witness'))
    witness.#usage = { inputTokens: 0, outputTokens: 0 }
    witness.#costUsd = 0.5
    witness.#detector = new NoProgressDetector(NO_PROGRESS_DEFAULTS)
    return witness
  }

  /** The ladder of a run; none when the agent turned detection off. `stop` makes the run's `no-progress` failure. */
  static of(settings: NoProgressSettings | undefined, events: EventHub, stop: (reason: string) => Error): RunProgress | undefined {
    return settings === undefined ? undefined : new RunProgress(settings, events, stop)
  }

  /** The next turn's conversation: with the nudge (or the forced turn's notice) appended as an ephemeral message. */
  static conversation(progress: RunProgress | undefined, messages: readonly Message[]): readonly Message[] {
    const next = progress === undefined ? undefined : progress.#next
    if (next === undefined || next.step === 'stop') return messages
    return [...messages, { role: 'user', content: next.message, ephemeral: true }]
  }

  /**
   * Takes a settled tool turn and what the run has spent so far (the turn's share is the
   * difference); emits the verdict, and throws the run's `no-progress` failure on a `stop`.
   */
  afterTurn(
    response: ModelResponse,
    settled: readonly SettledToolCall[],
    spent: { readonly usage: Usage; readonly costUsd: number },
    who: { readonly runId: string; readonly tags: EventTags },
  ): NoProgressVerdict | undefined {
    const events: ProgressEvent[] = []
    if (response.content !== '') events.push({ kind: 'text', text: response.content })
    for (const s of settled) {
      const { name, args } = s.call
      const { status } = s.entry
      events.push(
        status === 'ok'
          ? { kind: 'call', tool: name, args }
          : status === 'withheld'
            ? { kind: 'call', tool: name, args, withheld: true }
            : { kind: 'call', tool: name, args, error: s.result.content },
      )
    }
    const usage = minusUsage(spent.usage, this.#usage)
    const costUsd = spent.costUsd - this.#costUsd
    this.#usage = spent.usage
    this.#costUsd = spent.costUsd
    this.#detector ??= new NoProgressDetector(this.#settings)
    const verdict = this.#detector.observe({ events, usage, costUsd })
    this.#next = verdict
    if (verdict === undefined) return undefined
    emitNoProgress({ events: this.#events, runId: who.runId, tags: who.tags, host: 'agent' }, verdict)
    if (verdict.step === 'stop') throw this.#stop(noProgressReason(verdict))
    return verdict
  }

  /**
   * The forced change on the next turn's request: the looping tools left out (or, when nothing
   * would be left, and for a text loop, `toolChoice: 'none'`: the history's tool calls keep their
   * definitions, which some providers require).
   */
  force(request: { tools?: readonly ToolSpec[]; toolChoice?: ToolChoice }): void {
    const forced = this.#next?.forced
    if (forced === undefined) return
    const withhold = 'withhold' in forced ? forced.withhold : undefined
    const kept = withhold === undefined ? [] : (request.tools ?? []).filter((t) => !withhold.includes(t.name))
    if (kept.length === 0) request.toolChoice = 'none'
    else request.tools = kept
  }

  /** The tools withheld on this turn: their calls are answered without running (the model may call them anyway). */
  get withheld(): readonly string[] | undefined {
    const forced: ForcedChange | undefined = this.#next?.forced
    return forced !== undefined && 'withhold' in forced ? forced.withhold : undefined
  }
}

function minusUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens - b.inputTokens, outputTokens: a.outputTokens - b.outputTokens }
}

// Kept for their hidden classes: without them a full collection deoptimises the agent's loop and the
// ladder (test/gate/hidden-classes-kept.test.ts names every function it would throw away).
keepShape(RunProgress.witness())
keepShape(new NoProgressDetector(NO_PROGRESS_DEFAULTS))
