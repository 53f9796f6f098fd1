import { describe, expect, it } from 'vitest'
import { RUN_TIMEOUT_MS, runExample } from './support/run-example.ts'

// examples/langchain.ts, run as a user runs it (offline: langchain's createAgent and fakeModel()).
describe('examples/langchain.ts', () => {
  it('answers bad tool arguments with feedback, re-asks a prose answer, and keeps only the accepted answer in state', {
    timeout: RUN_TIMEOUT_MS + 5_000,
  }, async () => {
    const run = await runExample('langchain.ts', {})
    expect(run.code).toBe(0)
    const out = run.stdout
    expect(out).toContain('validation_failed stage=tool-args')
    expect(out).toContain('validation_failed stage=json-parse')
    expect(out).toContain('the tool ran on: [{"city":"Oslo","days":2}]')
    expect(out).toContain('state ai: {"city":"Oslo","celsius":21}')
    // The rejected prose answer was seen by the model only, never stored.
    expect(out).not.toContain('state ai: Oslo will be mild')
    expect(out).toContain('model calls: 4')
  })
})
