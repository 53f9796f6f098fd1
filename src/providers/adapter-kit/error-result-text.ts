import { wellFormedText } from './well-formed.ts'

/** What an error tool result without content says on the wire. */
const EMPTY_ERROR_RESULT = 'the tool failed without a message'

/**
 * The content of an error tool result for the wire: its text (well-formed, see `wellFormedText`), or,
 * when it is blank, a sentence saying the tool failed: Anthropic's API refuses an error result without
 * content ("content cannot be empty if `is_error` is true") on every later request.
 *
 * @example
 * errorResultText('')        // 'the tool failed without a message'
 * errorResultText('timeout') // 'timeout'
 */
export function errorResultText(content: string): string {
  return content.trim() === '' ? EMPTY_ERROR_RESULT : wellFormedText(content)
}
