import type { EventTags } from '../../events/event-map.ts'
import { eventTags } from '../../events/event-tags.ts'
import { frozenMetadata } from '../../events/frozen-payload.ts'
import type { ResponseCall } from '../../policies/chain-attempt.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import type { DecisionGuard, GateInternals, GateRunOptions, RunHooks } from '../gate-internals.ts'
import type { DurableSteps } from './durable-steps.ts'
import type { RunDeadline } from './run-deadline.ts'

/** What a run takes from its options and hooks; runs with none share their gate's (one field where eight took about 60 B). */
export class RunSettings<T> {
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  readonly turn: number | undefined
  readonly failuresBefore: number
  readonly schema: CompiledSchema<T> | undefined
  readonly call: ResponseCall
  readonly guard: DecisionGuard | undefined
  readonly deadline: RunDeadline | undefined
  #tags: EventTags | undefined = undefined

  constructor(g: GateInternals<T>, options: GateRunOptions, hooks: RunHooks | undefined, deadline: RunDeadline | undefined) {
    // User code reads it (a link's ctx, rules): the copy the run's events carry, never the caller's own object.
    this.metadata = options.metadata === undefined ? undefined : frozenMetadata(options.metadata)
    this.turn = options.turn
    this.failuresBefore = options.validationFailuresBefore ?? 0
    this.schema = options.validateOutput === false ? undefined : g.schema
    this.call = hooks?.call ?? g.call
    this.guard = hooks?.guardDecision
    this.deadline = deadline
  }

  /** The turn and metadata every event of the run carries; `undefined` when the run has neither. */
  get tags(): EventTags | undefined {
    if (this.#tags === undefined && (this.turn !== undefined || this.metadata !== undefined)) this.#tags = eventTags(this.turn, this.metadata)
    return this.#tags
  }

  /** A durable run's steps; none for every other run (on the prototype: a plain run's settings hold no field for it). */
  get durable(): DurableSteps | undefined {
    return undefined
  }
}

/** The settings of a durable run: its steps, and its events' tags marked while an attempt replays. */
class DurableRunSettings<T> extends RunSettings<T> {
  readonly #steps: DurableSteps

  constructor(g: GateInternals<T>, options: GateRunOptions, hooks: RunHooks & { readonly durable: DurableSteps }, deadline: RunDeadline | undefined) {
    super(g, options, hooks, deadline)
    this.#steps = hooks.durable
  }

  override get durable(): DurableSteps {
    return this.#steps
  }

  override get tags(): EventTags | undefined {
    return this.#steps.tagsOf(super.tags)
  }
}

// The settings of a gate's runs that bring nothing of their own but (an agent's) model turn, by turn (0: no turn).
const gateDefaults = new WeakMap<GateInternals<unknown>, RunSettings<unknown>[]>()
// Turns past it get settings of their own: the shared ones stay a short array.
const MAX_SHARED_TURN = 32

/** The settings of a run: its gate's shared ones when it brings nothing of its own but its turn. */
export function settingsOf<T>(g: GateInternals<T>, options: GateRunOptions, hooks: RunHooks | undefined, deadline: RunDeadline | undefined): RunSettings<T> {
  const turn = options.turn
  const plain =
    hooks === undefined &&
    deadline === undefined &&
    options.metadata === undefined &&
    (turn === undefined || (Number.isInteger(turn) && turn >= 1 && turn <= MAX_SHARED_TURN)) &&
    options.validationFailuresBefore === undefined &&
    options.validateOutput !== false
  if (!plain) {
    return hooks?.durable === undefined
      ? new RunSettings(g, options, hooks, deadline)
      : new DurableRunSettings(g, options, hooks as RunHooks & { readonly durable: DurableSteps }, deadline)
  }
  let shared = gateDefaults.get(g)
  if (shared === undefined) gateDefaults.set(g, (shared = []))
  const at = turn ?? 0
  return (shared[at] ??= new RunSettings(g, turn === undefined ? NO_OPTIONS : { turn }, undefined, undefined)) as RunSettings<T>
}

const NO_OPTIONS: GateRunOptions = Object.freeze({})
