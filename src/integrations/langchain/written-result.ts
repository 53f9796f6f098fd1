import { safeJsonText } from '../../validation/index.ts'

/**
 * A tool's output as LangChain will write it, except where LangChain's `JSON.stringify` would lose
 * what it holds: a Map, a Set or an opaque instance (`{}`), a cycle or a BigInt (`[object Object]`).
 * Those are written as the Agent writes its tools' results (`safeJsonText`), as the text the
 * `ToolMessage` holds. Left as they are: strings and what is no object, LangChain's direct outputs
 * (a `ToolMessage`, a `Command`), content blocks, and a `content_and_artifact` tool's tuple.
 */
export function writtenResult(output: unknown, tool: object): unknown {
  try {
    if (typeof output !== 'object' || output === null) return output
    if ((output as { lc_direct_tool_output?: unknown }).lc_direct_tool_output === true) return output
    if ((tool as { responseFormat?: unknown }).responseFormat === 'content_and_artifact') return output
    if (Array.isArray(output) && output.every((b) => typeof b === 'object' && b !== null && 'type' in b)) return output
    const safe = safeJsonText(output)
    return safe !== undefined && safe !== langChainText(output) ? safe : output
  } catch {
    // A Proxy LangChain would fail on too: handed on as it is, for LangChain to answer.
    return output
  }
}

/** What LangChain's own `_stringify` writes for a tool's output, or `undefined` where it would not use JSON. */
function langChainText(output: unknown): string | undefined {
  try {
    return JSON.stringify(output) ?? ''
  } catch {
    return undefined
  }
}
