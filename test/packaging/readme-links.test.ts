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
const contributing = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8')
const scripts = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)

/** The relative links and images of a Markdown text (`[text](target)`, `![alt](target)`), anchors kept. */
const relativeLinks = (markdown: string): string[] =>
  [...markdown.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))

/** The targets of the README's relative links and images, anchors dropped. */
const relativeTargets = relativeLinks(readme).map((target) => target.split('#')[0] as string)

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

/** The anchors of a Markdown file's headings (fenced code left out: a `#` comment there is no heading). */
function anchorsIn(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '')
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] as string)))
}

/** The script names of every `npm run <script>` in a text. */
const npmScripts = (text: string): string[] => [...text.matchAll(/npm run ([a-z][\w-]*(?::[\w-]+)*)/g)].map((match) => match[1] as string)

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

describe('CONTRIBUTING.md', () => {
  it('links only files and folders that exist, and headings that exist', () => {
    const links = relativeLinks(contributing)
    expect(links.length).toBeGreaterThan(20)
    const broken = links.filter((link) => {
      const [target = '', anchor] = link.split('#')
      if (!existsSync(path.join(ROOT, target))) return true
      return anchor !== undefined && !anchorsIn(target).has(anchor)
    })
    expect(broken).toEqual([])
  })

  it('names only npm scripts that package.json defines', () => {
    const named = npmScripts(contributing)
    expect(named).toContain('bench:check')
    expect(named.filter((name) => !scripts.includes(name))).toEqual([])
  })

  it('runs vitest only on test paths that exist', () => {
    const paths = [...contributing.matchAll(/npx vitest run ([^\n#]+)/g)].flatMap((match) => (match[1] as string).trim().split(/\s+/))
    expect(paths.length).toBeGreaterThan(0)
    expect(paths.filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([])
  })

  it('finds a missing script, a missing file and a missing heading', () => {
    expect(npmScripts('run `npm run no-such-script` first').filter((name) => !scripts.includes(name))).toEqual(['no-such-script'])
    expect(existsSync(path.join(ROOT, relativeLinks('[gone](src/no-such-file.ts)')[0] as string))).toBe(false)
    expect(anchorsIn('README.md').has(anchorOf('No such heading'))).toBe(false)
    expect(anchorsIn('README.md').has(anchorOf('The attempt chain and your middleware'))).toBe(true)
  })
})

describe('The README', () => {
  it('names only npm scripts that package.json defines', () => {
    expect(npmScripts(readme).filter((name) => !scripts.includes(name))).toEqual([])
  })
})
