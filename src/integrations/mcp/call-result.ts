import { jsonTextOf } from '../../model/json-text-of.ts'
import { boundText, formatIssueLines, type CompiledSchema } from '../../validation/index.ts'
import { McpToolError } from './mcp-tool-error.ts'

/**
 * Longest text of an `isError` result kept in its {@link McpToolError} (which reaches logs, events and
 * traces); a longer one keeps its head and a marker saying how many characters were cut. What the
 * model reads is bounded again by the agent's feedback budget (`maxFeedbackChars`).
 */
export const MAX_MCP_ERROR_CHARS = 16_000

/** Where a call result came from, for the errors it may raise. */
export interface CallSource {
  readonly server: string
  readonly tool: string
  readonly output: CompiledSchema<unknown> | undefined
}

/**
 * The value a `tools/call` result gives the model:
 * - `isError: true`: an {@link McpToolError} of kind `tool-error` carrying the result's text (at most
 *   {@link MAX_MCP_ERROR_CHARS}), which the agent turns into an error tool result the model reads
 *   (SEP-1303), bounded by its feedback budget;
 * - a tool with an `outputSchema`: its `structuredContent`, validated (missing or mismatched is an
 *   `output-invalid` error, never passed on);
 * - otherwise `structuredContent` when the server sent one, else the text of the content blocks
 *   (an image, audio or a resource link is described in one line, not inlined).
 */
export async function callResultValue(result: unknown, source: CallSource): Promise<unknown> {
  const record = isObject(result) ? result : {}
  const text = contentText(record['content'])
  if (record['isError'] === true) {
    throw new McpToolError({
      kind: 'tool-error',
      server: source.server,
      tool: source.tool,
      message: text === '' ? 'the tool reported an error' : boundText(text, MAX_MCP_ERROR_CHARS),
    })
  }
  const structured = record['structuredContent']
  if (source.output !== undefined) {
    if (structured === undefined) {
      throw new McpToolError({
        kind: 'output-invalid',
        server: source.server,
        tool: source.tool,
        message: `tool '${source.tool}' has an outputSchema but its result has no structuredContent`,
      })
    }
    const verdict = await source.output.validate(structured)
    if (!verdict.ok) {
      throw new McpToolError({
        kind: 'output-invalid',
        server: source.server,
        tool: source.tool,
        message: [`the structuredContent of tool '${source.tool}' does not match its outputSchema:`, ...formatIssueLines(verdict.issues)].join('\n'),
        issues: verdict.issues,
      })
    }
    return verdict.value
  }
  if (structured !== undefined) return structured
  return text
}

/** The content blocks as text, one block a paragraph. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const block of content) {
    if (!isObject(block)) continue
    switch (block['type']) {
      case 'text':
        if (typeof block['text'] === 'string') parts.push(block['text'])
        break
      case 'resource': {
        const resource = isObject(block['resource']) ? block['resource'] : {}
        parts.push(typeof resource['text'] === 'string' ? resource['text'] : `[resource ${jsonTextOf(resource['uri'])}]`)
        break
      }
      case 'resource_link':
        parts.push(`[resource link ${jsonTextOf(block['uri'])}]`)
        break
      default:
        parts.push(`[${jsonTextOf(block['type'])} content${typeof block['mimeType'] === 'string' ? ` (${jsonTextOf(block['mimeType'])})` : ''}]`)
    }
  }
  return parts.join('\n\n')
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
