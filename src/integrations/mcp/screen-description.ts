import { type ContentGuard, runContentGuards } from '../../validation/guards/index.ts'
import { McpToolError } from './mcp-tool-error.ts'
import type { PreparedTool } from './prepare-tool.ts'

/**
 * A listed tool's description through the `mcp-description` guards, before any model reads it
 * (tool poisoning hides instructions there): a redaction replaces it; a block, an escalation or a
 * re-ask refuses the tool (`description-refused`, thrown or skipped as `onRefused` says). The
 * guards see the tool's annotations and the name the caller gave its server (never the one the
 * server gave itself), for per-tool trust.
 */
export async function screenDescription(
  prepared: PreparedTool,
  { server, serverName }: { readonly server: string; readonly serverName: string | undefined },
  guards: readonly ContentGuard[],
  signal: AbortSignal | undefined,
): Promise<PreparedTool> {
  if (!guards.some((g) => g.surfaces.includes('mcp-description'))) return prepared
  const { readOnlyHint, openWorldHint } = prepared.annotations
  const tool = {
    name: prepared.name,
    ...(serverName !== undefined ? { server: serverName } : {}),
    ...(readOnlyHint !== undefined ? { readOnly: readOnlyHint } : {}),
    ...(openWorldHint !== undefined ? { openWorld: openWorldHint } : {}),
  }
  const outcome = await runContentGuards(guards, { surface: 'mcp-description', text: prepared.description, tool, signal })
  if (outcome.action === 'allow') return prepared
  if (outcome.action === 'redact') return Object.freeze({ ...prepared, description: outcome.text })
  throw new McpToolError({
    kind: 'description-refused',
    server,
    tool: prepared.name,
    message: `mcpTools: guard '${outcome.guard}' refused the description of tool '${prepared.name}': ${outcome.reason}`,
  })
}
