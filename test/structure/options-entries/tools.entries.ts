import { contentGuard, guard, idShapeGuard, instructionGuard, piiGuard, secretsGuard, tool } from '../../../src/index.ts'
import { screenToolResult, streamWindow } from '../../../src/validation/building-blocks.ts'
import { mcpTools } from '../../../src/integrations/mcp.ts'
import type { OptionsEntry } from './entry.ts'

/** A client that would answer an empty list: the options are checked before any request is sent. */
const client = {
  request: () => Promise.reject(new Error('the options check must run before any request')),
  setNotificationHandler: () => undefined,
  getServerVersion: () => ({ name: 's' }),
}

/** Tools, guards and MCP tools (`reliability-gate` and `reliability-gate/mcp`). */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'contentGuard',
    covers: ['.:contentGuard', 'validation:contentGuard'],
    keys: ['surfaces', 'lookback', 'onError', 'timeoutMs'],
    durations: ['timeoutMs'],
    call: (options) => contentGuard('g', () => ({ action: 'allow' }), options as never),
  },
  {
    name: 'piiGuard',
    covers: ['.:piiGuard', 'validation:piiGuard'],
    keys: ['surfaces', 'trustedServers', 'trustClosedWorld', 'trustReadOnly', 'onError', 'kinds'],
    call: (options) => piiGuard(options as never),
  },
  {
    name: 'secretsGuard',
    covers: ['.:secretsGuard', 'validation:secretsGuard'],
    keys: ['surfaces', 'trustedServers', 'trustClosedWorld', 'trustReadOnly', 'onError', 'action'],
    call: (options) => secretsGuard(options as never),
  },
  {
    name: 'instructionGuard',
    covers: ['.:instructionGuard', 'validation:instructionGuard'],
    keys: ['surfaces', 'trustedServers', 'trustClosedWorld', 'trustReadOnly', 'onError'],
    call: (options) => instructionGuard(options as never),
  },
  { name: 'streamWindow', covers: ['validation:streamWindow'], keys: ['signal', 'report'], call: (options) => streamWindow([], options as never) },
  {
    name: 'screenToolResult',
    covers: ['validation:screenToolResult'],
    keys: ['pii', 'secrets', 'instructions', 'tool'],
    call: (options) => screenToolResult('text', options as never),
  },
  {
    name: 'mcpTools',
    covers: ['mcp:mcpTools'],
    keys: [
      'serverName',
      'trustSchemas',
      'limits',
      'filter',
      'onRefused',
      'timeoutMs',
      'transportRetries',
      'retryTransport',
      'maxRetries',
      'watch',
      'onToolsChanged',
      'onError',
      'signal',
      'contentGuards',
    ],
    durations: ['timeoutMs'],
    numbers: ['transportRetries', 'maxRetries'],
    call: (options) => mcpTools(client, options),
  },
  {
    name: 'mcpTools: limits',
    keys: ['maxDepth', 'maxNodes', 'maxChars'],
    numbers: ['maxDepth', 'maxNodes', 'maxChars'],
    call: (options) => mcpTools(client, { limits: options }),
  },
  {
    name: 'tool',
    covers: ['.:tool'],
    keys: ['name', 'description', 'input', 'execute', 'guards', 'maxRetries', 'needsApproval', 'approvalTimeoutMs'],
    numbers: ['maxRetries'],
    durations: ['approvalTimeoutMs'],
    call: (options) => tool({ name: 't', description: 'd', input: { type: 'object' }, execute: () => 1, ...options } as never),
  },
  {
    name: 'guard',
    covers: ['.:guard'],
    keys: ['checksRawInput'],
    call: (options) => guard('g', () => ({ ok: true }), options),
  },
  {
    name: 'idShapeGuard',
    covers: ['.:idShapeGuard'],
    keys: ['fields', 'pattern'],
    call: (options) => idShapeGuard(options),
  },
]
