import { describe, expect, it } from 'vitest'
import * as mcp from '../../src/integrations/mcp.ts'
// @ts-expect-error: a plain .mjs script without types.
import { packageEntries } from '../../scripts/package-entries.mjs'

describe('reliability-gate/mcp', () => {
  it('is a subpath of the package, built from src/integrations/mcp.ts', async () => {
    const entries = (await packageEntries()) as { importPath: string; source: string }[]
    expect(entries).toContainEqual({ importPath: 'reliability-gate/mcp', source: 'src/integrations/mcp.ts' })
  })

  it('exports mcpTools, its error family and its defaults, and nothing else', () => {
    expect(Object.keys(mcp).sort()).toEqual([
      'DEFAULT_MCP_TIMEOUT_MS',
      'DEFAULT_SCHEMA_LIMITS',
      'MAX_MCP_ERROR_CHARS',
      'McpToolError',
      'isMcpToolError',
      'mcpTools',
      'retriesTransport',
    ])
  })
})
