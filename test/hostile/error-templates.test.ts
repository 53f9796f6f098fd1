import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isStepConfigError, strictOutput } from '../../src/index.ts'
import { MAX_TEMPLATE_BYTES } from '../../src/rules/load-error-template.ts'

/** A fresh folder holding `files` (paths relative to it), and a sibling secret outside it. */
function setup(files: Record<string, string> = {}): { base: string; secret: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rg-templates-')))
  const base = join(root, 'pipeline')
  mkdirSync(join(base, 'prompts'), { recursive: true })
  for (const [path, text] of Object.entries(files)) writeFileSync(join(base, path), text)
  const secret = join(root, 'secret.txt')
  writeFileSync(secret, 'API_KEY=hunter2')
  return { base, secret }
}

/** The config error `fromStepConfig` throws for `template` read from `baseDir`, or a failure when it reads it. */
function refusal(template: string, baseDir: string | undefined): Error {
  let error: unknown
  let loaded: unknown
  try {
    loaded = strictOutput.fromStepConfig({ error_template: template }, baseDir === undefined ? {} : { baseDir }).errorTemplate
  } catch (e) {
    error = e
  }
  expect(loaded).toBeUndefined()
  expect(isStepConfigError(error)).toBe(true)
  expect((error as Error).message).not.toContain('hunter2')
  return error as Error
}

describe('error_template files stay inside baseDir', () => {
  it('refuses a relative path that leaves baseDir', () => {
    const { base } = setup()
    expect(refusal('../secret.txt', base).message).toMatch(/outside baseDir/)
    expect(refusal('prompts/../../secret.txt', base).message).toMatch(/outside baseDir/)
  })

  it('refuses an absolute path outside baseDir', () => {
    const { base, secret } = setup()
    expect(refusal(secret, base).message).toMatch(/outside baseDir/)
  })

  it('refuses /dev/zero without reading it, within 2 s', () => {
    const { base } = setup()
    const started = Date.now()
    expect(refusal('/dev/zero', base).message).toMatch(/outside baseDir/)
    expect(refusal('zero', '/dev').message).toMatch(/not a regular file/)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('refuses a symlink inside baseDir that points outside it', () => {
    const { base, secret } = setup()
    symlinkSync(secret, join(base, 'prompts', 'feedback.j2'))
    expect(refusal('prompts/feedback.j2', base).message).toMatch(/outside baseDir/)
  })

  it('refuses a path inside a symlinked folder that points outside', () => {
    const { base } = setup()
    symlinkSync('/etc', join(base, 'etc'))
    expect(refusal('etc/hostname', base).message).toMatch(/outside baseDir/)
  })

  it('follows a symlink that stays inside baseDir', () => {
    const { base } = setup({ 'prompts/real.j2': 'Fix {{ attempt }}' })
    symlinkSync(join(base, 'prompts', 'real.j2'), join(base, 'link.j2'))
    expect(strictOutput.fromStepConfig({ error_template: 'link.j2' }, { baseDir: base }).errorTemplate).toBe('Fix {{ attempt }}')
  })

  it('reads an absolute path inside baseDir', () => {
    const { base } = setup({ 'prompts/a.j2': 'A {{ attempt }}' })
    expect(strictOutput.fromStepConfig({ error_template: join(base, 'prompts/a.j2') }, { baseDir: base }).errorTemplate).toBe('A {{ attempt }}')
  })

  it('reads baseDir given through a symlink', () => {
    const { base } = setup({ 'a.j2': 'A' })
    const alias = `${base}-alias`
    symlinkSync(base, alias)
    expect(strictOutput.fromStepConfig({ error_template: 'a.j2' }, { baseDir: alias }).errorTemplate).toBe('A')
  })

  it('refuses a directory', () => {
    const { base } = setup()
    expect(refusal('prompts', base).message).toMatch(/not a regular file/)
  })

  it('refuses a FIFO without blocking on it, within 2 s', () => {
    const { base } = setup()
    execFileSync('mkfifo', [join(base, 'pipe.j2')])
    const started = Date.now()
    expect(refusal('pipe.j2', base).message).toMatch(/not a regular file/)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('refuses a file larger than the cap, naming it', () => {
    const { base } = setup({ 'huge.j2': 'x'.repeat(MAX_TEMPLATE_BYTES + 1) })
    expect(refusal('huge.j2', base).message).toContain(String(MAX_TEMPLATE_BYTES))
  })

  it('reads a file exactly at the cap', () => {
    const { base } = setup({ 'full.j2': 'y'.repeat(MAX_TEMPLATE_BYTES) })
    expect(strictOutput.fromStepConfig({ error_template: 'full.j2' }, { baseDir: base }).errorTemplate).toHaveLength(MAX_TEMPLATE_BYTES)
  })

  it('refuses a path holding a NUL byte with a config error', () => {
    const { base } = setup()
    expect(refusal('a\u0000.j2', base).message).toMatch(/error_template/)
  })

  it('refuses a baseDir that does not exist with a config error', () => {
    const { base } = setup()
    expect(refusal('a.j2', join(base, 'missing')).message).toMatch(/baseDir/)
  })

  it('refuses a path that leaves the working directory when no baseDir is given', () => {
    const { secret } = setup()
    expect(refusal(secret, undefined).message).toMatch(/outside baseDir/)
  })
})
