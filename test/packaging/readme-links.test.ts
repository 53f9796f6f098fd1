import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  readonly files: readonly string[]
  readonly repository?: { readonly url?: string }
  readonly homepage?: string
  readonly bugs?: { readonly url?: string }
}
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')

/** The targets of the README's relative links and images (`[text](target)`, `![alt](target)`), anchors dropped. */
const relativeTargets = [...readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)]
  .map((match) => match[1] as string)
  .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
  .map((target) => target.split('#')[0] as string)

/** Whether the package's `files` list ships `file` (an entry names the file or a folder holding it). */
const ships = (file: string): boolean => pkg.files.some((entry) => file === entry || file.startsWith(`${entry.replace(/\/$/, '')}/`))

describe('The README on the registry page', () => {
  it('names the repository, its home page and where to report bugs', () => {
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/)
    expect(pkg.homepage).toMatch(/^https:\/\//)
    expect(pkg.bugs?.url).toMatch(/^https:\/\//)
  })

  it('links only files that exist and that the package ships', () => {
    expect(relativeTargets.length).toBeGreaterThan(0)
    const broken = relativeTargets.filter((target) => !existsSync(path.join(ROOT, target)) || !ships(target))
    expect(broken).toEqual([])
  })

  it('says where the examples it mentions live, since the package does not ship them', () => {
    expect(readme).toContain('examples/')
    expect(pkg.files.some((entry) => entry.startsWith('examples'))).toBe(false)
    expect(readme).toMatch(/examples live in the repository/)
  })
})
