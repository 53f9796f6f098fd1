import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GATE_OPTIONS } from '../../src/gate/options/option-table.ts'
import { SRC, sourceFiles } from '../support/source-imports.ts'

const files = sourceFiles().filter((f) => !f.includes('/providers/'))

/** A file's code without its comments, so prose about `provider.complete()` does not count. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
}

function filesMatching(pattern: RegExp): string[] {
  return files.filter((f) => pattern.test(code(f))).map((f) => relative(SRC, f))
}

describe('one core', () => {
  it('calls a provider only at the end of the attempt chain: the plain call and the streaming one', () => {
    expect(filesMatching(/\bprovider\.(complete|stream)\(/).sort()).toEqual(['gate/call-provider.ts', 'gate/stream/consume-provider-stream.ts'])
  })

  it('writes the run state only in the run loop: every step returns what changed', () => {
    const writes =
      /\b(?:this|s|run|view)\.#?(?:attempt|providerIdx|base|tail|history|signatures|records|retryAfterMs|transientFailures|lastTime)\s*(?:=(?!=)|\+\+|\+=|\.push\()/
    expect(filesMatching(writes).filter((f) => f.startsWith('gate/'))).toEqual(['gate/run/run-gate.ts'])
  })

  it('adds to the run meter only in the run loop', () => {
    expect(filesMatching(/\.#?meter\.add\(/)).toEqual(['gate/run/run-gate.ts'])
  })

  it('has no second copy of a run: no quick path and no hand-over', () => {
    for (const gone of ['gate/quick-run.ts', 'agent/quick-agent-run.ts', 'gate/gate-run.ts', 'gate/run-attempt.ts'])
      expect(existsSync(join(SRC, gone))).toBe(false)
    expect(filesMatching(/\b(?:RunStart|firstAnswerWatched|FIRST_ANSWER_EVENTS|afterFirstTurn|quickRunnable)\b/)).toEqual([])
  })

  it('builds the attempt chain in one place, in the order the options table gives', () => {
    expect(filesMatching(/(?<!function )\bcompileChain\(/)).toEqual(['gate/options/build-chain.ts'])
    const order = Object.entries(GATE_OPTIONS)
      .filter(([, row]) => row.link !== undefined || row.policy !== undefined)
      .map(([key, row]) => `${key}:${row.link !== undefined ? 'link' : 'policy'}`)
    expect(order).toEqual(['timeoutMs:link', 'contentGuards:link', 'rateLimit:policy', 'breaker:policy', 'budget:policy'])
    // The policies are one stage, asked together: their store calls share a round trip.
    expect(filesMatching(/(?<!function )\badmissionStage\(/)).toEqual(['gate/options/build-chain.ts'])
  })

  it('gives every option of the gate a row saying what it adds', () => {
    for (const row of Object.values(GATE_OPTIONS)) expect(row.acts).toMatch(/^(setup|check|meter|rules|retry|fallback|run|link|user-links)$/)
    const config = readFileSync(join(SRC, 'gate/gate-config.ts'), 'utf8') + readFileSync(join(SRC, 'rules/reliability-config.ts'), 'utf8')
    const declared = [...config.matchAll(/^ {2}readonly (\w+)\??:/gm)].map((m) => m[1] as string).filter((k) => k !== 'provider' && k !== 'name')
    expect(new Set(declared)).toEqual(new Set(Object.keys(GATE_OPTIONS)))
  })
})
