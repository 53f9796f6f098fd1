import { spawnSync } from 'node:child_process'
import { linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/trace/viewer/cli-main.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-cli-'))
const trace = join(dir, 'trace.jsonl')
writeFileSync(trace, '{"type":"run_start","runId":"r","ts":1,"provider":"p"}\n')
const BIN = resolve(import.meta.dirname, '../../src/trace/cli.ts')

/** Runs the command in-process; a server would never settle, so each case is bounded. */
async function run(...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await Promise.race([
    main(args, { out: (l) => out.push(l), err: (l) => err.push(l) }),
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), 2_000).unref()),
  ])
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('reliability-gate view (command line)', () => {
  it.each([
    ['--html without its output path', ['view', trace, '--html'], '--html needs a value'],
    ['--html followed by another flag', ['view', trace, '--html', '--port', '3'], '--html needs a value'],
    ['--port without its value', ['view', trace, '--port'], '--port needs a value'],
    ['an empty --html=', ['view', trace, '--html='], '--html needs a value'],
    ['an unknown flag', ['view', trace, '--htlm', 'out.html'], 'unknown option "--htlm"'],
    ['a single-dash flag', ['view', trace, '-x'], 'unknown option "-x"'],
    ['a flag given twice', ['view', trace, '--port', '1', '--port', '2'], '--port is given twice'],
    ['--html with --port', ['view', trace, '--html', join(dir, 'o.html'), '--port', '8080'], 'give one of them'],
    ['a port that is not a number', ['view', trace, '--port', 'eighty'], '--port must be an integer from 0 to 65535, got "eighty"'],
    ['a port out of range', ['view', trace, '--port', '70000'], '--port must be an integer from 0 to 65535'],
    ['a negative port', ['view', trace, '--port=-1'], '--port must be an integer'],
    ['a second file', ['view', trace, trace], 'unexpected argument'],
    ['no file', ['view'], 'missing the trace file'],
    ['no command', [], 'missing command'],
    ['an unknown command', ['serve', trace], 'unknown command "serve"'],
    ['a missing file', ['view', join(dir, 'nope.jsonl')], 'no such file'],
    ['a directory', ['view', dir], 'is not a file'],
    ['an output path that is the trace itself', ['view', trace, '--html', trace], 'would overwrite the trace'],
  ])('refuses %s with a usage error on stderr, exit code 2 and no server', async (_, args, problem) => {
    const { code, out, err } = await run(...args)
    expect(code).toBe(2)
    expect(err).toContain(problem)
    expect(err).toContain('usage: reliability-gate view')
    expect(out).toBe('')
  })

  it('keeps the trace intact when asked to write the page over it', async () => {
    await run('view', trace, '--html', trace)
    expect(readFileSync(trace, 'utf8')).toContain('"run_start"')
  })

  it('refuses, and keeps the trace intact, when the output path is the trace reached another way (a symlink, a symlinked folder, a hard link)', async () => {
    const other = mkdtempSync(join(tmpdir(), 'rg-cli-alias-'))
    const link = join(other, 'out.html')
    symlinkSync(trace, link)
    const folder = join(other, 'traces')
    symlinkSync(dir, folder)
    const hard = join(other, 'hard.html')
    linkSync(trace, hard)
    for (const out of [link, join(folder, 'trace.jsonl'), hard]) {
      const { code, err } = await run('view', trace, '--html', out)
      expect(code).toBe(2)
      expect(err).toContain('would overwrite the trace')
      expect(readFileSync(trace, 'utf8')).toBe('{"type":"run_start","runId":"r","ts":1,"provider":"p"}\n')
    }
    // A symlink to another file, and a new file, are written as asked.
    const elsewhere = join(other, 'page.html')
    writeFileSync(elsewhere, '')
    mkdirSync(join(other, 'sub'))
    symlinkSync(elsewhere, join(other, 'sub', 'to-page.html'))
    expect((await run('view', trace, '--html', join(other, 'sub', 'to-page.html'))).code).toBe(0)
    expect(readFileSync(elsewhere, 'utf8').startsWith('<!doctype html>')).toBe(true)
  })

  it('exits 1 naming the path when the page cannot be written', async () => {
    const { code, err } = await run('view', trace, '--html', dir)
    expect(code).toBe(1)
    expect(err).toContain(`cannot write ${dir}`)
  })

  it('accepts --html=<out> and writes the page', async () => {
    const out = join(dir, 'eq.html')
    const result = await run('view', trace, `--html=${out}`)
    expect(result).toMatchObject({ code: 0, out: `wrote ${out}` })
    expect(readFileSync(out, 'utf8').startsWith('<!doctype html>')).toBe(true)
  })

  it('prints the help on stdout with exit code 0', async () => {
    const { code, out, err } = await run('view', '--help')
    expect(code).toBe(0)
    expect(out).toContain('usage: reliability-gate view')
    expect(err).toBe('')
  })

  it('exits the real bin with code 2 and the usage on stderr for view <file> --html', () => {
    const child = spawnSync(process.execPath, ['--no-warnings', BIN, 'view', trace, '--html'], { encoding: 'utf8', timeout: 10_000 })
    expect(child.status).toBe(2)
    expect(child.stderr).toContain('--html needs a value')
    expect(child.stdout).toBe('')
  })
})
