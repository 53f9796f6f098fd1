import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SCRIPT = fileURLToPath(new URL('../../scripts/check-readme-ts.mjs', import.meta.url))

/** Runs the README check (a tsc program of its own) and returns its exit code and output. */
function checkReadme(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })
}

describe('README.md', () => {
  // tsc checks the library's sources again behind the blocks' imports: allow it time on a busy machine.
  it('type-checks every ts block against the sources', { timeout: 180_000 }, async () => {
    const { code, output } = await checkReadme()
    expect(code, output).toBe(0)
    expect(output).toMatch(/README\.md: \d+ ts blocks type-check/)
  })
})
