// The ```ts blocks of README.md as modules: shared by the README type check against the sources
// (check-readme-ts.mjs) and the packed package's test, which type-checks them against the built
// declarations under node16 and bundler resolution.
import { writeFileSync } from 'node:fs'
import path from 'node:path'

/** The line before a fence that keeps its block out of the check (a fragment). */
export const SKIP = '<!-- ts-check: skip -->'

/** The ```ts blocks of a markdown text, with the README line of their first code line. */
export function tsBlocks(markdown) {
  const lines = markdown.split('\n')
  const blocks = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue
    let end = i + 1
    while (end < lines.length && lines[end].trim() !== '```') end++
    let before = i - 1
    while (before >= 0 && lines[before].trim() === '') before--
    blocks.push({ line: i + 2, code: lines.slice(i + 1, end).join('\n'), skip: lines[before]?.trim() === SKIP })
    i = end
  }
  return blocks
}

/**
 * Writes each block not skipped as `block-NN.ts` in `dir` and returns them by file name. `export {}`
 * makes every block a module of its own: top-level await, no clashes between blocks.
 */
export function writeBlocks(markdown, dir) {
  const files = new Map()
  for (const [n, block] of tsBlocks(markdown).entries()) {
    if (block.skip) continue
    const name = `block-${String(n + 1).padStart(2, '0')}.ts`
    writeFileSync(path.join(dir, name), `${block.code}\nexport {}\n`)
    files.set(name, block)
  }
  return files
}
