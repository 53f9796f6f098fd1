import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SRC, sourceFiles } from '../support/source-imports.ts'

// Cloudflare Workers (workerd) refuse random values, timers and I/O in a module's global scope: a
// module that draws one at import cannot be loaded there at all. The runtime smoke test catches it on
// a real workerd; this catches it in every file, without one.
const AT_IMPORT = /\b(?:randomUUID|getRandomValues|randomBytes|Math\.random|setTimeout|setInterval|setImmediate|fetch)\s*\(/

/** The statements of a file that run at import: its lines outside any function or class body (depth 0). */
function topLevel(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
  const lines: string[] = []
  let depth = 0
  for (const line of code.split('\n')) {
    if (depth === 0) lines.push(line)
    for (const ch of line) {
      if (ch === '{') depth++
      else if (ch === '}') depth = Math.max(0, depth - 1)
    }
  }
  return lines
}

describe('what a module does at import', () => {
  it('draws no random value, starts no timer and makes no request at the top level of any source file', () => {
    const offending = sourceFiles().flatMap((file) =>
      topLevel(readFileSync(file, 'utf8'))
        .filter((line) => AT_IMPORT.test(line) && !/^\s*(?:export\s+)?(?:async\s+)?function\b/.test(line) && !/=>/.test(line))
        .map((line) => `${relative(SRC, file)}: ${line.trim()}`),
    )
    expect(offending).toEqual([])
  })

  it('finds such a call when one is there', () => {
    expect(topLevel('const id = crypto.randomUUID()\nfunction f() {\n  return Math.random()\n}').filter((l) => AT_IMPORT.test(l))).toEqual([
      'const id = crypto.randomUUID()',
    ])
  })
})
