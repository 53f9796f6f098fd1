import { addUsage, type Usage, ZERO_USAGE } from '../../model/usage.ts'
import { nudgeText } from './nudge-text.ts'
import type { NoProgressSettings } from './no-progress-options.ts'
import type { NoProgressPattern, NoProgressStep, NoProgressVerdict } from './no-progress-verdict.ts'
import { callKey, errorClass } from './progress-key.ts'
import type { ProgressTurn } from './progress-turn.ts'

/** A pattern that reached its threshold during a turn. */
interface Trigger {
  readonly pattern: NoProgressPattern
  readonly tools: readonly string[]
  readonly count: number
  readonly threshold: number
  /** The turn that made the pattern's first call or text. */
  readonly since: number
  readonly detail: string | undefined
}

interface Streak {
  key: string
  count: number
  since: number
}

interface Call {
  readonly key: string
  readonly tool: string
  readonly turn: number
}

interface Spent {
  readonly usage: Usage
  readonly costUsd: number
  readonly unknownTurns: number
}

const RUNGS: readonly NoProgressStep[] = ['nudge', 'forced-change', 'stop']

/** The error of a call the forced change withheld: it extends the tool's error streak, whatever its class. */
const WITHHELD = Symbol('withheld')

/**
 * The one no-progress detector every host shares (the Agent's loop, the AI SDK middleware and its
 * `stopWhen`/`prepareStep` helpers, the LangChain middleware): fed one model turn at a time, it
 * follows four patterns (one call repeated, one tool's error class repeated, two calls alternating,
 * one text repeated) and answers the rung of the ladder the run is on. Each loop climbs on its own:
 * the first turn that takes it to its threshold is a nudge, the next turn that extends it a forced
 * change, the next a stop; a loop that was broken and comes back resumes where it was, so breaking
 * it for one turn buys nothing. Pure: no clock, no I/O, no host type.
 */
export class NoProgressDetector {
  readonly #settings: NoProgressSettings
  #turn = 0
  /** What the run spent after each turn (index 0: before the first). */
  readonly #spent: Spent[] = [{ usage: ZERO_USAGE, costUsd: 0, unknownTurns: 0 }]
  #call: Streak | undefined
  #last: Call | undefined
  #beforeLast: Call | undefined
  #alternation = { count: 0, since: 0 }
  readonly #errors = new Map<string, Streak>()
  #text: Streak | undefined
  /** The rung each loop (by fingerprint) has reached, and the turn it began. */
  readonly #rungs = new Map<string, { rung: number; since: number }>()

  constructor(settings: NoProgressSettings) {
    this.#settings = settings
  }

  /** Takes one model turn (its calls with their outcomes, its text, its cost) and answers the rung it puts the run on, if any. */
  observe(turn: ProgressTurn): NoProgressVerdict | undefined {
    this.#turn++
    this.#addSpent(turn)
    const triggers = new Map<string, Trigger>()
    for (const event of turn.events) {
      if (event.kind === 'text') this.#onText(event.text, triggers)
      else if (!this.#settings.exempt.includes(event.tool)) this.#onCall(event.tool, event.args, event.withheld === true ? WITHHELD : event.error, triggers)
    }
    return this.#climb(triggers)
  }

  #onText(text: string, triggers: Map<string, Trigger>): void {
    if (text.trim() === '') return
    const streak = this.#text
    if (streak !== undefined && streak.key === text) streak.count++
    else this.#text = { key: text, count: 1, since: this.#turn }
    const now = this.#text as Streak
    const threshold = this.#settings.textRepeats
    if (now.count >= threshold)
      triggers.set(`t\u0000${text}`, { pattern: 'repeated-text', tools: [], count: now.count, threshold, since: now.since, detail: undefined })
  }

  #onCall(tool: string, args: unknown, error: string | typeof WITHHELD | undefined, triggers: Map<string, Trigger>): void {
    const key = callKey(tool, args, this.#settings)
    const s = this.#settings
    // The same call in a row.
    if (this.#call !== undefined && this.#call.key === key) this.#call.count++
    else this.#call = { key, count: 1, since: this.#turn }
    if (this.#call.count >= s.repeats) {
      triggers.set(`c\u0000${key}`, {
        pattern: 'repeated-call',
        tools: [tool],
        count: this.#call.count,
        threshold: s.repeats,
        since: this.#call.since,
        detail: undefined,
      })
    }
    // Two calls alternating: this call is the one before the last, and differs from the last.
    const last = this.#last
    const before = this.#beforeLast
    if (last !== undefined && last.key !== key) {
      if (before !== undefined && before.key === key && this.#alternation.count >= 2) this.#alternation.count++
      else this.#alternation = { count: 2, since: last.turn }
    } else {
      this.#alternation = { count: 1, since: this.#turn }
    }
    if (last !== undefined && this.#alternation.count >= s.pingPong) {
      const pair = [last.key, key].sort().join('\u0001')
      const tools = [...new Set([last.tool, tool])]
      triggers.set(`p\u0000${pair}`, {
        pattern: 'ping-pong',
        tools,
        count: this.#alternation.count,
        threshold: s.pingPong,
        since: this.#alternation.since,
        detail: undefined,
      })
    }
    this.#beforeLast = last
    this.#last = { key, tool, turn: this.#turn }
    // One tool's errors of one class in a row (its successes and other classes reset it; other tools do not).
    if (error === undefined) {
      this.#errors.delete(tool)
      return
    }
    const streak = this.#errors.get(tool)
    if (error === WITHHELD && streak === undefined) return
    const kind = error === WITHHELD ? (streak as Streak).key : errorClass(error)
    if (streak !== undefined && streak.key === kind) streak.count++
    else this.#errors.set(tool, { key: kind, count: 1, since: this.#turn })
    const now = this.#errors.get(tool) as Streak
    if (now.count >= s.errorRepeats) {
      triggers.set(`e\u0000${tool}\u0000${kind}`, {
        pattern: 'repeated-error',
        tools: [tool],
        count: now.count,
        threshold: s.errorRepeats,
        since: now.since,
        detail: kind,
      })
    }
  }

  /** Each loop the turn extended past its threshold climbs one rung; the highest rung is the turn's verdict. */
  #climb(triggers: ReadonlyMap<string, Trigger>): NoProgressVerdict | undefined {
    let top: { trigger: Trigger; rung: number; since: number } | undefined
    for (const [fingerprint, trigger] of triggers) {
      const seen = this.#rungs.get(fingerprint)
      const rung = (seen?.rung ?? 0) + 1
      const since = seen?.since ?? trigger.since
      this.#rungs.set(fingerprint, { rung, since })
      if (top === undefined || rung > top.rung) top = { trigger, rung, since }
    }
    if (top === undefined) return undefined
    const { trigger, rung, since } = top
    const step = RUNGS[Math.min(rung, RUNGS.length) - 1] as NoProgressStep
    const now = this.#spent[this.#turn] as Spent
    const then = this.#spent[since] as Spent
    const message = nudgeText(trigger.pattern, trigger.tools, trigger.count, trigger.detail)
    const verdict: NoProgressVerdict = {
      step,
      pattern: trigger.pattern,
      tools: Object.freeze([...trigger.tools]),
      count: trigger.count,
      threshold: trigger.threshold,
      turnsSinceProgress: this.#turn - since,
      usage: minus(now.usage, then.usage),
      costUsd: Math.max(0, now.costUsd - then.costUsd),
      usageKnown: now.unknownTurns === then.unknownTurns,
      message,
      ...(step === 'forced-change' ? { forced: this.#forced(trigger) } : {}),
    }
    return Object.freeze(verdict)
  }

  #forced(trigger: Trigger): NonNullable<NoProgressVerdict['forced']> {
    if (this.#settings.forcedChange === 'no-tools' || trigger.tools.length === 0) return Object.freeze({ toolChoice: 'none' as const })
    return Object.freeze({ withhold: Object.freeze([...trigger.tools]) })
  }

  #addSpent(turn: ProgressTurn): void {
    const before = this.#spent[this.#spent.length - 1] as Spent
    const cost = turn.costUsd
    this.#spent.push({
      usage: turn.usage === undefined ? before.usage : addUsage(before.usage, turn.usage),
      costUsd: before.costUsd + (typeof cost === 'number' && Number.isFinite(cost) && cost > 0 ? cost : 0),
      unknownTurns: before.unknownTurns + (turn.usage === undefined ? 1 : 0),
    })
  }
}

function minus(a: Usage, b: Usage): Usage {
  const out: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: a.inputTokens - b.inputTokens, outputTokens: a.outputTokens - b.outputTokens }
  if (a.cacheReadTokens !== undefined) out.cacheReadTokens = a.cacheReadTokens - (b.cacheReadTokens ?? 0)
  if (a.cacheWriteTokens !== undefined) out.cacheWriteTokens = a.cacheWriteTokens - (b.cacheWriteTokens ?? 0)
  if (a.estimated === true) out.estimated = true
  return Object.freeze(out)
}

/**
 * The verdict on the last of `turns`, replayed from the first: what a host that only sees the
 * conversation (a middleware reading the prompt) does before the next model call.
 */
export function lastVerdict(settings: NoProgressSettings, turns: readonly ProgressTurn[]): NoProgressVerdict | undefined {
  const detector = new NoProgressDetector(settings)
  let verdict: NoProgressVerdict | undefined
  for (const turn of turns) verdict = detector.observe(turn)
  return verdict
}
