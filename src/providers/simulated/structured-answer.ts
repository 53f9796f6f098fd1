import type { JsonSchema } from '../../model/request.ts'
import { extractJson } from '../../validation/json/extract-json.ts'
import { isDataFault, type DataFault, type SimulatedFault } from './faults.ts'
import { fixIssues } from './fix-issues.ts'
import { generateValue } from './generate-value.ts'
import { injectFaults } from './inject-faults.ts'
import { planFaults } from './plan-faults.ts'
import { createRandom } from './prng.ts'
import type { PromptHints } from './prompt-hints.ts'
import { readFeedback, TRUNCATION_MARKER } from './read-feedback.ts'
import type { Conversation } from './read-conversation.ts'
import { renderOutput, type RenderedOutput } from './render-output.ts'
import { resolveSchema } from './schema.ts'

/** Everything that decides a structured answer besides the conversation. */
export interface AnswerSettings {
  readonly valueSeed: number
  readonly faultSeed: number
  readonly faults: readonly SimulatedFault[] | 'random'
  readonly ignoreFeedback: boolean
  readonly hints: PromptHints
}

/**
 * The answer to a request with a response schema.
 *
 * A first attempt is the valid value damaged by the planned faults. A retry starts from the previous
 * answer (or, when that does not parse, from the first attempt's damaged value without its
 * formatting faults) and fixes exactly the paths the feedback names. With `ignoreFeedback` the
 * previous answer comes back verbatim.
 */
export function structuredAnswer(schema: JsonSchema, conversation: Conversation, settings: AnswerSettings): RenderedOutput {
  const node = resolveSchema(schema, schema)
  const valid = generateValue(schema, settings.valueSeed, { hints: settings.hints })
  const random = createRandom(settings.faultSeed)
  const target = { value: valid, schema: node, root: schema }
  const planned = planFaults(settings.faults, target, random)
  const dataFaults = planned.filter((f): f is DataFault => isDataFault(f))
  const damaged = injectFaults(target, dataFaults, random).value
  const first = renderOutput(damaged, { fenced: planned.includes('fenced-in-prose'), truncated: planned.includes('truncated-json') })
  const retry = conversation.answerRetry
  if (retry === undefined) return first

  const cut = retry.previous.includes(TRUNCATION_MARKER)
  if (settings.ignoreFeedback) {
    // The gate may have shortened the previous answer in the tail; what the model said is the first attempt.
    if (cut) return first
    return { text: retry.previous, stopReason: retry.previous === first.text ? first.stopReason : 'end' }
  }
  const parsed = extractJson(cut ? retry.previous.replace(TRUNCATION_MARKER, '') : retry.previous)
  const start = parsed.ok ? parsed.value : damaged
  const fixed = fixIssues(start, readFeedback(retry.feedback).issues, { schema, valid, seed: settings.valueSeed, hints: settings.hints })
  return renderOutput(fixed, { fenced: false, truncated: false })
}
