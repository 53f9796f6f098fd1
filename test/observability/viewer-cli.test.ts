import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/trace/viewer/cli-main.ts'
import { skippedReport } from '../../src/trace/viewer/skipped-report.ts'

const GOOD = JSON.stringify({ type: 'run_start', runId: 'r1', ts: 1, provider: 'p' })

function traceFile(lines: readonly string[]): { path: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rg-cli-'))
  const path = join(dir, 'trace.jsonl')
  writeFileSync(path, `${lines.join('\n')}\n`)
  return { path, out: join(dir, 'page.html') }
}

async function view(path: string, out: string) {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await main(['view', path, '--html', out], { out: (l) => stdout.push(l), err: (l) => stderr.push(l) })
  return { code, stdout, stderr: stderr.join('\n') }
}

describe('reliability-gate view', () => {
  it('names the malformed lines it skipped on stderr, with their numbers and why', async () => {
    const { path, out } = traceFile([GOOD, 'not json at all', '[1, 2]', GOOD, '{"type": "x"}'])
    const { code, stdout, stderr } = await view(path, out)
    expect(code).toBe(0)
    expect(stdout).toEqual([`wrote ${out}`])
    expect(stderr).toContain('skipped 3 malformed lines of')
    expect(stderr).toMatch(/line 2: not JSON/)
    expect(stderr).toContain('line 3: not a JSON object (an array)')
    expect(stderr).toContain('line 5: no "runId"')
    expect(stderr).not.toContain('line 1:')
    expect(readFileSync(out, 'utf8')).toContain('skipped-line')
  })

  it('says nothing on stderr when every line was used', async () => {
    const { path, out } = traceFile([GOOD, GOOD])
    const { code, stderr } = await view(path, out)
    expect(code).toBe(0)
    expect(stderr).toBe('')
  })

  it('names at most ten skipped lines and counts the rest', async () => {
    const { path, out } = traceFile(Array.from({ length: 25 }, (_, i) => `garbage ${i}`))
    const { stderr } = await view(path, out)
    expect(stderr).toContain('skipped 25 malformed lines')
    expect(stderr.match(/^ {2}line \d+:/gm)).toHaveLength(10)
    expect(stderr).toContain('… and 15 more')
  })

  it('escapes terminal control characters and bounds a long reason', () => {
    const report = skippedReport('a\u001b[31m.jsonl', [{ line: 4, reason: `not JSON (\u001b[2J\u001b]0;pwned\u0007${'x'.repeat(5000)}\r\nforged)` }]) ?? ''
    expect([...report].filter((c) => c !== '\n' && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))).toEqual([])
    expect(report.split('\n')).toHaveLength(2)
    expect(report).toContain('\\u001b[2J')
    expect(report.length).toBeLessThan(600)
  })
})
