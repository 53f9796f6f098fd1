import { execFile } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Agent, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { recordTrace, serveTrace, type TraceServer } from '../../src/trace/index.ts'
import { call, EventInput, invalidEvent, turn, validEvent } from '../agent/tool-fixtures.ts'

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

  it('expands and collapses every run, attempt and tool call at once', async () => {
    const open = () => page.locator('main details[open]').count()
    const all = await page.locator('main details').count()
    await page.getByTestId('expand-all').click()
    expect(await open()).toBe(all)
    await page.getByTestId('collapse-all').click()
    expect(await open()).toBe(0)
  })
})

describe.skipIf(!present)('Trace viewer in Chromium, on a hand-made and a tool-retry trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rg-viewer-hostile-'))
  const trace = join(dir, 'retry.jsonl')
  let server: TraceServer
  let context: BrowserContext
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    const eventTool = tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => 'ok' })
    const steps = [turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.']
    const agent = Agent.create({ provider: scripted(steps), model: 'm', name: 'mailbot' })
      .tool(eventTool)
      .build()
    const recorder = recordTrace(agent, { path: trace })
    await agent.run('book', { runId: 'retry-run' })
    await recorder.stop()
    // A line cut short, and a run whose fields have the wrong types.
    appendFileSync(
      trace,
      [
        '{"type":"attempt_end","runId":"cut',
        JSON.stringify({ type: 'attempt_start', runId: 'bad-run', attempt: '1', provider: 7 }),
        JSON.stringify({ type: 'cost_tick', runId: 'bad-run', attemptCostUsd: 'free' }),
        JSON.stringify({
          type: 'attempt_end',
          runId: 'bad-run',
          errorKind: 'ok',
          usage: 'n/a',
          response: { content: '</script><script>window.pwned=1</script>' },
        }),
      ].join('\n'),
    )
    server = await serveTrace(trace)
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, args: ARGS, viewport: { width: 1200, height: 900 } })
    page = await context.newPage()
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(server.url)
  }, 90_000)

  afterAll(async () => {
    await context?.close()
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('renders without a script error, names the skipped line and shows the wrong-typed fields as invalid', async () => {
    await expect.poll(() => page.getByTestId('run').count()).toBe(2)
    expect(errors).toEqual([])
    expect(await page.evaluate('globalThis.pwned')).toBeUndefined()
    const lines = await page.getByTestId('skipped-line').allTextContents()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^line \d+: not JSON/)
    await page.getByTestId('expand-all').click()
    const invalid = await page.locator('[data-run-id="bad-run"] [data-testid=invalid]').textContent()
    expect(invalid).toContain('attemptCostUsd is string, expected a finite number')
    expect(await page.locator('[data-run-id="bad-run"] [data-testid=raw-output]').textContent()).toBe('</script><script>window.pwned=1</script>')
  })

  it('draws a tool-argument retry as a retry of its tool with the feedback it was sent', async () => {
    await page.getByTestId('expand-all').click()
    const retry = page.locator('[data-run-id="retry-run"] [data-testid=attempt][data-tool-retry]')
    expect(await retry.count()).toBe(1)
    expect(await retry.getAttribute('data-tool-retry')).toBe('valid')
    const summary = await retry.locator('summary').textContent()
    expect(summary).toContain('argument retry 1 of create_event')
    expect(summary).toContain('args valid')
    expect(await retry.getByTestId('sent').textContent()).toContain("'at': expected ISO datetime")
  })

  it('draws a rejected tool call as rejected with its own issues, and the corrected call as valid', async () => {
    await page.getByTestId('expand-all').click()
    const first = page.locator('[data-run-id="retry-run"] [data-testid=attempt]').first()
    const firstSummary = await first.locator('summary').textContent()
    expect(firstSummary).toContain('args rejected')
    expect(firstSummary).not.toContain('valid')
    expect(await first.getAttribute('class')).toContain('failed')
    expect(await first.getByTestId('issue-path').allTextContents()).toEqual(['at'])
    const toolCall = page.locator('[data-run-id="retry-run"] [data-testid=tool]')
    const rejected = toolCall.getByTestId('rejected-call')
    expect(await rejected.count()).toBe(1)
    expect(await rejected.textContent()).toContain('"tomorrow"')
    expect(await rejected.getByTestId('issue-path').allTextContents()).toEqual(['at'])
    expect(await toolCall.getByTestId('final-args').textContent()).toContain('2026-05-03T09:00:00Z')
    // The corrected call carries no issues of its own.
    expect(await toolCall.getByTestId('issue-path').count()).toBe(1)
  })
})
