import { frozenMessages, frozenRequest } from '../model/frozen-copy.ts'
import type { Message } from '../model/message.ts'
import { withLowerMode } from '../model/schema-instruction.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ReliabilityRule, RequestAdjustment } from './rule.ts'
import type { ReliabilityScope } from './scope.ts'

/** The next attempt's request without its ephemeral tail, and that tail. */
export interface AdjustedRequest {
  readonly base: ModelRequest
  readonly tail: readonly Message[]
}

const ROLES: ReadonlySet<unknown> = new Set(['system', 'user', 'assistant', 'tool'])

/**
 * The request and tail of the next attempt after `rule` decided a retry: changed by the rule's
 * `adjustRequest` when it has one, unchanged otherwise. Each field of the adjustment is checked on
 * its own and one of the wrong shape is ignored (`maxTokens` a whole number above 0, `messages` a
 * non-empty array of messages, `model` a non-empty string, `tail` an array of messages, `outputMode` `'json'` or `'prompt'`); an
 * adjustment that throws changes nothing, so a faulty rule never breaks the run. The rule is given
 * frozen copies (`viewOf(sent.base)`: the run's memoised copy, or a new one); `sent` and its
 * arrays are never mutated: a change makes a copy.
 */
export function adjustRequestFor(
  rule: ReliabilityRule | undefined,
  scope: ReliabilityScope,
  sent: AdjustedRequest,
  viewOf: (request: ModelRequest) => ModelRequest = frozenRequest,
): AdjustedRequest {
  const { base: request, tail } = sent
  let asked: RequestAdjustment
  try {
    // Read inside the try: a rule's getter (or proxy) that throws here changes nothing, as an adjustment that throws.
    const adjust = rule?.adjustRequest
    if (typeof adjust !== 'function') return sent
    // The rule reads frozen copies: an edit in place reaches neither the caller's conversation nor what is sent.
    asked = adjust(scope, viewOf(request), frozenMessages(tail))
    if (typeof asked !== 'object' || asked === null) return sent
    const maxTokens = wholeAbove0(asked.maxTokens)
    const messages = messageList(asked.messages, 1)
    const model = typeof asked.model === 'string' && asked.model !== '' ? asked.model : undefined
    const nextTail = ephemeral(messageList(asked.tail, 0))
    const outputMode = asked.outputMode === 'json' || asked.outputMode === 'prompt' ? asked.outputMode : undefined
    if (maxTokens === undefined && messages === undefined && model === undefined && outputMode === undefined)
      return nextTail === undefined ? sent : { base: request, tail: nextTail }
    const base: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = outputMode === undefined ? { ...request } : withLowerMode(request, outputMode)
    if (maxTokens !== undefined) base.maxTokens = maxTokens
    if (messages !== undefined) base.messages = messages
    if (model !== undefined) base.model = model
    return { base, tail: nextTail ?? tail }
  } catch {
    return sent
  }
}

/**
 * The adjustment's request differs from the one given in what would be sent: a field of another
 * value, or messages (history or tail) that read otherwise. A copy that repeats the same values
 * (`{ maxTokens: request.maxTokens }`, the messages spread into new objects) is no change.
 */
export function changedRequest(before: AdjustedRequest, after: AdjustedRequest): boolean {
  return !sameMessages(before.tail, after.tail) || !sameRequest(before.base, after.base)
}

function sameRequest(a: ModelRequest, b: ModelRequest): boolean {
  if (a === b) return true
  const x = a as unknown as Record<string, unknown>
  const y = b as unknown as Record<string, unknown>
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const same = key === 'messages' ? sameMessages(a.messages, b.messages) : x[key] === y[key]
    if (!same) return false
  }
  return true
}

/** Two message lists that read alike: the same messages, or copies whose JSON text is the same (one that cannot be written counts as changed). */
function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  try {
    return a.every((m, i) => m === b[i] || JSON.stringify(m) === JSON.stringify(b[i]))
  } catch {
    return false
  }
}

/** A tail as the gate sends every tail: each message marked `ephemeral: true` (a copy of any that was not), so none is ever taken for the conversation. */
function ephemeral(tail: readonly Message[] | undefined): readonly Message[] | undefined {
  if (tail === undefined || tail.every((m) => m.ephemeral === true)) return tail
  return Object.freeze(tail.map((m) => (m.ephemeral === true ? m : { ...m, ephemeral: true })))
}

function wholeAbove0(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined
}

/** A frozen copy of `v` when it is an array of at least `min` messages (a role and a string content each). */
function messageList(v: unknown, min: number): readonly Message[] | undefined {
  if (!Array.isArray(v) || v.length < min) return undefined
  for (const m of v) {
    if (typeof m !== 'object' || m === null || !ROLES.has((m as Message).role) || typeof (m as Message).content !== 'string') return undefined
  }
  return Object.freeze(v.slice()) as readonly Message[]
}
