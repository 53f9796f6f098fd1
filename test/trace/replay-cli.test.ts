import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from 'typebox'
import { beforeAll, describe, expect, it } from 'vitest'
import { strictOutputRules } from '../../src/index.ts'
import { main } from '../../src/trace/viewer/cli-main.ts'
import { recordCalls } from './support/record-calls.ts'

const Loose = Type.Object({ n: Type.Integer() })
const RETRY = (n: number) => `{ when: (s) => s.validationError !== undefined && s.attempt < ${n}, then: 'retry', kind: 'schema-retry', failuresOnly: true }`
const STRICT_SCHEMA = `{ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }`

let dir: string
let trace: string
const moduleFile = (name: string, text: string): string => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

async function replay(...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(['replay', ...args], { out: (l) => out.push(l), err: (l) => err.push(l) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rg-replay-cli-'))
  trace = join(dir, 'trace.jsonl')
  const config = { providers: ['p'], outputSchema: Loose, postDecide: strictOutputRules(3), pricing: { m1: { input: 1, output: 2 } } }
  await recordCalls(config, [{ p: ['{"n": 1}'] }, { p: ['nope', '{"n": 2}'] }, { p: ['{"n": 3, "extra": 1}'] }], trace)
})

describe('reliability-gate replay', () => {
  it('prints the calls whose decisions changed, with the first diverging attempt, and the totals before and after', async () => {
    const config = moduleFile(
      'strict.mjs',
      `export default { outputSchema: ${STRICT_SCHEMA}, postDecide: [${RETRY(3)}], pricing: { m1: { input: 1, output: 2 } } }`,
    )
    const { code, out, err } = await replay(trace, '--config', config)
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toContain('3 calls replayed: 2 same, 0 changed, 1 need a model answer')
    expect(out).toMatch(/call-2\s+needs-model-answer\s+attempt 1: accept \(ok\) → retry \(schema-fail\)/)
    expect(out).toContain('needs answer: attempt 2 from p')
    expect(out).toMatch(/success\s+3\/3 \(100\.0%\)\s+2\/2 \(100\.0%\)\s+2\/2 \(100\.0%\)/)
  })

  it('writes the viewer page with each changed call replayed beside its original with --html', async () => {
    const config = moduleFile(
      'strict-html.mjs',
      `export default { outputSchema: ${STRICT_SCHEMA}, postDecide: [${RETRY(3)}], pricing: { m1: { input: 1, output: 2 } } }`,
    )
    const out = join(dir, 'replay.html')
    const { code } = await replay(trace, '--config', config, '--html', out)
    expect(code).toBe(0)
    const page = readFileSync(out, 'utf8')
    expect(page).toContain('call-2 ⟲ replay')
    expect(page).toContain('needs a model answer at attempt 2')
    expect(page).not.toContain('call-0 ⟲ replay')
    expect(page.indexOf('call-2 ⟲ replay')).toBeGreaterThan(page.indexOf('"call-2"'))
    expect((await replay(trace, '--config', config, '--html', trace)).err).toContain('--html would overwrite the trace')
    const link = join(dir, 'link-to-trace.html')
    symlinkSync(trace, link)
    const before = readFileSync(trace, 'utf8')
    expect(await replay(trace, '--config', config, '--html', link)).toMatchObject({ code: 2, err: expect.stringContaining('--html would overwrite the trace') })
    expect(readFileSync(trace, 'utf8')).toBe(before)
  })

  it('prints the report as JSON with --json', async () => {
    const config = moduleFile(
      'same.mjs',
      `export const config = { outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, postDecide: [${RETRY(1)}] }`,
    )
    const { code, out } = await replay(trace, '--config', config, '--json')
    expect(code).toBe(0)
    const report = JSON.parse(out)
    expect(report.calls.map((c: { status: string }) => c.status)).toEqual(['same', 'changed', 'same'])
    expect(report.calls[1].divergence).toMatchObject({ attempt: 1, before: { action: 'retry' }, after: { action: 'fail-fast' } })
    expect(report.after.successRate).toBeCloseTo(2 / 3)
  })

  it('exits 1 when the success rate falls below --min-success, and says so', async () => {
    const config = moduleFile(
      'one.mjs',
      `export default { outputSchema: { type: 'object', required: ['n'] }, postDecide: [${RETRY(1)}], pricing: { m1: { input: 1, output: 2 } } }`,
    )
    const failing = await replay(trace, '--config', config, '--min-success', '0.9')
    expect(failing.code).toBe(1)
    expect(failing.err).toContain('success rate 0.6667 (2/3) is below --min-success 0.9')
    expect((await replay(trace, '--config', config, '--min-success=0.6')).code).toBe(0)
  })

  it('exits 1 when the cost per success rises past --max-cost-per-success', async () => {
    const config = moduleFile(
      'priced.mjs',
      `export default { outputSchema: { type: 'object' }, postDecide: [${RETRY(3)}], pricing: { m1: { input: 100, output: 200 } } }`,
    )
    const { code, err } = await replay(trace, '--config', config, '--max-cost-per-success', '0.0001')
    expect(code).toBe(1)
    expect(err).toMatch(/cost per success \$[\d.e-]+ is above --max-cost-per-success 0.0001/)
  })

  it('refuses an unknown flag with the flag it is closest to, exit 2', async () => {
    const { code, err } = await replay(trace, '--confg', 'x.mjs')
    expect(code).toBe(2)
    expect(err).toContain('unknown option "--confg" (did you mean "--config"?)')
    expect(err).toContain('usage: reliability-gate replay')
  })

  it.each([
    [['--config', 'x.mjs'], 'missing the trace file'],
    [['TRACE'], 'missing --config'],
    [['TRACE', '--config', 'x.mjs', '--min-success', '1.5'], '--min-success must be a fraction from 0 to 1'],
    [['TRACE', '--config', 'x.mjs', '--max-cost-per-success', 'NaN'], '--max-cost-per-success must be a non-negative number'],
    [['TRACE', '--config', 'x.mjs', '--json=yes'], '--json takes no value'],
    [['TRACE', '--config', 'a.mjs', '--config', 'b.mjs'], '--config is given twice'],
    [['TRACE', 'other.jsonl', '--config', 'x.mjs'], 'one trace file at a time'],
    [['nowhere.jsonl', '--config', 'x.mjs'], 'no such file'],
    [['TRACE', '--config', 'nowhere.mjs'], 'cannot load the configuration module'],
  ])('exits 2 on a usage error: %j', async (args, problem) => {
    const { code, err } = await replay(...args.map((a) => (a === 'TRACE' ? trace : a)))
    expect(code).toBe(2)
    expect(err).toContain(problem)
  })

  it.each([
    ['a trace that is a directory', () => [dir, '--config', 'x.mjs'], `cannot read ${JSON.stringify('DIR')}: not a file`],
    ['a trace that is a device that never ends', () => ['/dev/zero', '--config', 'x.mjs'], 'cannot read "/dev/zero": not a file'],
    ['a module that is a directory', () => [trace, '--config', dir], `cannot load the configuration module ${JSON.stringify('DIR')}: not a file`],
    ['a module that is a device that never ends', () => [trace, '--config', '/dev/zero'], 'cannot load the configuration module "/dev/zero": not a file'],
  ])('exits 2 on %s, before reading it', async (_name, args, problem) => {
    const { code, err } = await replay(...args())
    expect(code).toBe(2)
    expect(err).toContain(problem.replace('DIR', dir))
  })

  it('exits 2 when the module exports no configuration, or one the gate refuses', async () => {
    const empty = moduleFile('empty.mjs', 'export const other = 1')
    expect((await replay(trace, '--config', empty)).err).toContain('must export (as default, or as config) a gate configuration')
    const misspelt = moduleFile('misspelt.mjs', 'export default { maxAtempts: 2 }')
    const { code, err } = await replay(trace, '--config', misspelt)
    expect(code).toBe(2)
    expect(err).toContain('did you mean "maxAttempts"')
  })

  it('runs every recorded case k times with --trials, on the providers the module gives, and reports pass^k and pass@k', async () => {
    const config = moduleFile(
      'trials.mjs',
      `export default { outputSchema: { type: 'object', required: ['n'] }, postDecide: [${RETRY(3)}] }
export const trialProviders = (trial) => { let calls = 0; return { name: 'flaky', complete: async () => ({ content: trial === 1 && calls++ === 0 ? 'nope' : '{"n": 1}', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }) } }`,
    )
    const { code, out } = await replay(trace, '--config', config, '--trials', '3')
    expect(code).toBe(0)
    expect(out).toContain('3 cases × 3 trials: pass^3 100.0%, pass@3 100.0%, success per trial 100.0%')
    expect(out).toContain('attempts to success (attempts:trials): 1:6 2:3')
    const json = JSON.parse((await replay(trace, '--config', config, '--trials=2', '--json')).out)
    expect(json.cases[0]).toMatchObject({ trials: 2, succeeded: 2, attemptsToSuccess: { 1: 1, 2: 1 } })
    const missing = await replay(trace, '--config', moduleFile('plain.mjs', 'export default {}'), '--trials', '2')
    expect(missing.code).toBe(2)
    expect(missing.err).toContain('export trialProviders(trial, call)')
    expect((await replay(trace, '--config', config, '--trials', '0')).err).toContain('--trials must be a whole number from 1 to 10000')
  })

  it('prints its help with --help, exit 0', async () => {
    const { code, out } = await replay('--help')
    expect(code).toBe(0)
    expect(out).toContain('--max-cost-per-success <usd>')
  })
})
