import { describe, expect, it } from 'vitest'
import { RUN_TIMEOUT_MS, runExample } from './support/run-example.ts'

// examples/sessions.ts, run as a user runs it: a conversation in a SQLite file resumed by a second process.
describe('examples/sessions.ts', () => {
  it('resumes the conversation in another process from the SQLite file, which holds only the accepted exchanges', {
    timeout: RUN_TIMEOUT_MS + 5_000,
  }, async () => {
    const run = await runExample('sessions.ts', {})
    expect(run.code, run.stderr).toBe(0)
    const out = run.stdout
    const pids = [...out.matchAll(/process (\d+)/g)].map((m) => m[1])
    // Two processes: the second is not the first.
    expect(new Set(pids).size).toBe(2)
    expect(out).toMatch(/process \d+: loaded customer-42 at version 2 \(4 messages\)/)
    // The answer needs what was said in the first process.
    expect(out).toContain('agent:    Order #4417 left our warehouse yesterday.')
    expect(out).toContain('the file holds 3 exchanges; rejected drafts or feedback stored: none')
  })
})
