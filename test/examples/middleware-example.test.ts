import { describe, expect, it } from 'vitest'
import { RUN_TIMEOUT_MS, runExample } from './support/run-example.ts'

// examples/middleware.ts, run as a user runs it (offline, on the simulated model): the three links of
// issue 9's middleware API, each checked by what it prints.
describe('examples/middleware.ts', () => {
  it('redacts PII before the model, answers a repeated question from the cache and routes a tenant to its deployment', {
    timeout: RUN_TIMEOUT_MS + 5_000,
  }, async () => {
    const run = await runExample('middleware.ts', {})
    expect(run.code).toBe(0)
    const out = run.stdout
    // Redaction: the model saw placeholders, never the phone number or the address.
    expect(out).toContain('the model saw: I was charged twice, call me at [phone] or write to [email]')
    expect(out).not.toMatch(/7946|ana\.lopez@example\.com/)
    // The cache: a new session asking the same question made no second model call for it.
    expect(out).toMatch(/same question in a new session: \{"category":"billing","priority":1\} \(model calls in all: 2, cache entries: 1\)/)
    // Routing: the tenant's own deployment answered.
    expect(out).toMatch(/tenant acme answered by its own deployment \(1 call\)/)
  })
})
