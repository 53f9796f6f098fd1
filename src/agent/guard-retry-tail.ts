import type { EventTags } from '../events/event-map.ts'
import type { EventHub } from '../events/event-hub.ts'
import { type ContentGuard, runContentGuards } from '../validation/guards/index.ts'
import { guardReport } from './guard-report.ts'

/** What an argument retry's ephemeral tail carries: the failing call's echoed arguments and the feedback. */
export interface RetryTail {
  readonly echo: unknown
  readonly feedback: string
}

const WITHHELD_ECHO = 'The rejected arguments are not repeated here: a guard withheld them. Call the tool again with valid arguments.'

/**
 * The retry tail through the `retry-tail` guards before it is sent: the model's rejected arguments
 * are echoed back to it, so a canary it wrote would otherwise reach the provider again. A redaction
 * replaces the echo (parsed back when it was JSON) or the feedback; any other verdict drops the
 * echo (`{}`) and replaces the feedback with a notice. Never throws: the retry goes on either way.
 */
export async function guardRetryTail(
  all: readonly ContentGuard[] | undefined,
  tail: RetryTail,
  run: { readonly events: EventHub; readonly runId: string; readonly tags: EventTags; readonly signal: AbortSignal | undefined; readonly tool: string },
): Promise<RetryTail> {
  const guards = all?.filter((g) => g.surfaces.includes('retry-tail')) ?? []
  if (guards.length === 0) return tail
  const report = guardReport({ events: run.events, runId: run.runId, tags: run.tags, host: 'agent' })
  const screen = (text: string) => runContentGuards(guards, { surface: 'retry-tail', text, tool: { name: run.tool }, signal: run.signal, report })
  const echoText = typeof tail.echo === 'string' ? tail.echo : (JSON.stringify(tail.echo) ?? 'null')
  const echoed = await screen(echoText)
  if (echoed.action !== 'allow' && echoed.action !== 'redact') return { echo: {}, feedback: WITHHELD_ECHO }
  const fed = await screen(tail.feedback)
  if (fed.action !== 'allow' && fed.action !== 'redact') return { echo: {}, feedback: WITHHELD_ECHO }
  return { echo: echoed.action === 'redact' ? reparsed(echoed.text, typeof tail.echo === 'string') : tail.echo, feedback: fed.text }
}

function reparsed(text: string, wasText: boolean): unknown {
  if (wasText) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
