import { describe, expect, it } from 'vitest'
import { RUN_TIMEOUT_MS, runExample } from './support/run-example.ts'

// examples/mcp.ts, run as a user runs it (offline, an in-process McpServer and a scripted model).
describe('examples/mcp.ts', () => {
  it('re-asks on arguments the server schema refuses, sends the server only the fixed call, and refuses a hostile schema', {
    timeout: RUN_TIMEOUT_MS + 5_000,
  }, async () => {
    const run = await runExample('mcp.ts', {})
    expect(run.code).toBe(0)
    const out = run.stdout
    expect(out).toContain("tools from server 'orders': track_order")
    expect(out).toContain('validation_failed stage=tool-args')
    expect(out).toContain('track_order({"order_id":"ORD-000042"}) -> ok, retries=1, result={"status":"shipped","eta":"2026-12-01"}')
    expect(out).toContain('calls the server ran: ["ORD-000042"]')
    expect(out).toContain('refused (schema-refused): mcpTools: server "orders" tool "lookup"')
  })
})
