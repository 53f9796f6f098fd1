import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveTrace, type TraceServer } from '../../src/trace/index.ts'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const ROOT = resolve(import.meta.dirname, '../..')
// Node 24 strips types by default; Node 22 needs the flag to run the demo's sources.
const NODE_FLAGS = process.features.typescript === false ? ['--experimental-strip-types'] : []
// CI installs chromium (.ci/run): there a missing browser is a failure, not a skip.
const present = existsSync(CHROMIUM) || process.env.CI === 'true'
if (!present) console.warn(`trace viewer browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`)

/** Records `npm run demo -- --trace <path>` in a child process. */
function recordDemo(path: string): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [...NODE_FLAGS, '--no-warnings', join(ROOT, 'examples/demo.ts'), '--trace', path],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error !== null) fail(new Error(`the demo failed: ${error.message}\n${stderr}`))
        else done(stdout)
      },
    )
  })
}

describe.skipIf(!present)('Trace viewer in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rg-viewer-'))
  const trace = join(dir, 'demo.jsonl')
  let server: TraceServer
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    const out = await recordDemo(trace)
    expect(out).toContain(`trace recorded in ${trace}`)
    server = await serveTrace(trace)
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, args: ARGS, viewport: { width: 1200, height: 900 } })
    page = await context.newPage()
    await page.goto(server.url)
  }, 90_000)

  afterAll(async () => {
    await context?.close()
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves the page on 127.0.0.1 and lists every recorded run', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    const runIds = new Set(
      readFileSync(trace, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { runId: string }).runId),
    )
    await expect.poll(() => page.getByTestId('run').count()).toBe(runIds.size)
  })

  it('shows a failed attempt’s raw output, issue paths, deciding rule and ephemeral tail when expanded', async () => {
    const run = page.getByTestId('run').filter({ hasText: 'agent billing' }).first()
    await run.locator('summary').first().click()
    const attempt = run.locator('[data-testid=attempt].failed').first()
    await attempt.locator('summary').click()
    await expect.poll(() => attempt.getByTestId('raw-output').textContent()).toContain('"amount": "USD 50"')
    expect(await attempt.getByTestId('issue-path').allTextContents()).toEqual(expect.arrayContaining(['amount', 'decidedAt']))
    expect(await attempt.getByTestId('decision').textContent()).toMatch(/^retry by rule /)
    const tail = attempt.getByTestId('tail')
    expect(await tail.textContent()).toContain('ephemeral · never persisted')
    expect(await tail.textContent()).toContain('Your previous response failed schema validation.')
    expect(await tail.isVisible()).toBe(true)
    const shot = process.env.RG_SCREENSHOT ?? join(dir, 'viewer.png')
    await page.screenshot({ path: shot })
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG')
  })

  it('filters runs by outcome, model and kind', async () => {
    const visible = () => page.locator('[data-testid=run]:visible').count()
    const all = await visible()
    await page.getByTestId('filter-outcome').selectOption('fail-fast')
    const failed = await visible()
    expect(failed).toBeGreaterThan(0)
    expect(failed).toBeLessThan(all)
    expect(await page.locator('[data-testid=run]:visible').evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome')))).toEqual(
      Array(failed).fill('fail-fast'),
    )
    await page.getByTestId('filter-outcome').selectOption('')
    await page.getByTestId('filter-model').selectOption('small-1')
    expect(await visible()).toBeGreaterThan(0)
    expect(await visible()).toBeLessThan(all)
    await page.getByTestId('filter-model').selectOption('')
    await page.getByTestId('filter-kind').selectOption('schema-stuck-loop')
    expect(await visible()).toBe(1)
    await page.getByTestId('filter-kind').selectOption('')
    expect(await visible()).toBe(all)
  })
})
