import type { ModelResponse } from '../model/response.ts'
import type { CompiledSchema } from '../validation/index.ts'
import { keptAfterFailedTest, NOT_PARSED, parseJsonFast } from '../validation/json/parse-json-fast.ts'

/** A schema with a compiled accept-only test. */
export type TestedSchema<T> = CompiledSchema<T> & { readonly test: (value: unknown) => boolean }

/** What {@link acceptWhole} answers when it did not accept: the value the full check may reuse, or `NOT_PARSED`. */
export class NotAccepted {
  readonly parsed: unknown
  constructor(parsed: unknown) {
    this.parsed = parsed
  }
}

// The common miss (nothing the full check may reuse) allocates nothing.
const NOTHING_PARSED = new NotAccepted(NOT_PARSED)

/**
 * The fast check of an answer, building nothing: a complete final answer whose whole text is a JSON
 * value the compiled test accepts is that value. Anything else is a {@link NotAccepted}, carrying
 * the parsed value when the full check may reuse it (it parsed whole and holds no key the full
 * check must report) rather than parse it again.
 */
export function acceptWhole<T>(schema: TestedSchema<T>, response: ModelResponse): unknown {
  if (response.toolCalls.length > 0 || response.stopReason === 'max_tokens') return NOTHING_PARSED
  const keysChecked = schema.declaredKeysOnly === true
  const parsed = parseJsonFast(response.content, keysChecked)
  if (parsed === NOT_PARSED) return NOTHING_PARSED
  if (schema.test(parsed)) return parsed
  const kept = keptAfterFailedTest(parsed, response.content, keysChecked)
  return kept === NOT_PARSED ? NOTHING_PARSED : new NotAccepted(kept)
}
