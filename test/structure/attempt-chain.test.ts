import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { ModelResponse } from '../../src/index.ts'
import type { Chain } from '../../src/policies/chain.ts'
import type { ChainAttempt } from '../../src/policies/chain-attempt.ts'
import { SRC, sourceFiles, sourceImports } from '../support/source-imports.ts'

const files = sourceFiles()

/** A file's code without its comments. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
}

function filesMatching(pattern: RegExp): string[] {
  return files
    .filter((f) => pattern.test(code(f)))
    .map((f) => relative(SRC, f))
    .sort()
}

/** The attempt machinery: the chain, its executor and link shapes, the gate's attempt and its stages, the provider call. */
const MACHINERY = [
  'policies/chain.ts',
  'policies/chain-attempt.ts',
  'policies/attempt-control.ts',
  'policies/stage.ts',
  'policies/middleware.ts',
  'policies/admission.ts',
  'gate/run/attempt.ts',
  'gate/run/gate-attempt.ts',
  'gate/run/check-link.ts',
  'gate/run/meter-link.ts',
  'gate/call-provider.ts',
]

describe('the attempt chain', () => {
  it('has one executor: only the chain attempt runs the halves of a stage', () => {
    expect(filesMatching(/\bstage\.(?:enter|leave|fail|undo)\??\.?\(/)).toEqual(['policies/chain-attempt.ts'])
    expect(filesMatching(/\bfunction compileChain\b/)).toEqual(['policies/chain.ts'])
    for (const gone of ['policies/stage-runner.ts', 'policies/run-stages.ts', 'policies/compose.ts', 'policies/link.ts', 'policies/response-terminal.ts'])
      expect(existsSync(join(SRC, gone))).toBe(false)
    expect(filesMatching(/\b(?:leavesAfter|SettleAttempt|DELIVERED|takeSettle|bareResponseTerminal|ACCEPTED_WHOLE)\b/)).toEqual([])
  })

  it('has two link shapes: the library writes Stage, users write Middleware', () => {
    const linkTypes = filesMatching(/^export (?:type|interface) (?:Stage|Middleware|Link|Admission|Terminal)\b/m)
    expect(linkTypes).toEqual(['policies/admission.ts', 'policies/middleware.ts', 'policies/stage.ts'])
    // An admission is one way to build a stage: nothing runs it but the stage it is made into.
    expect(filesMatching(/(?<!function )\badmissionStage\(/)).toEqual(['gate/options/build-chain.ts'])
  })

  it('answers the attempt’s response as a value: the loop alone continues a run', () => {
    // Into the chain: the innermost answer as it comes; out through its stages: the attempt's response.
    expectTypeOf<ReturnType<Chain>>().toEqualTypeOf<unknown>()
    expectTypeOf<ReturnType<ChainAttempt['leave']>>().toEqualTypeOf<ModelResponse | Promise<ModelResponse>>()
    // Nothing in the chain, its stages or the policies reaches the loop: the attempt ends and is taken in the loop's own step.
    const loop = join(SRC, 'gate/run/run-gate.ts')
    const importers = files.filter((f) => sourceImports(f).some((i) => i.to === loop)).map((f) => relative(SRC, f))
    expect(importers.filter((f) => f.startsWith('policies/') || MACHINERY.includes(f))).toEqual([])
    expect(filesMatching(/\b(?:startAttempt|endAttempt)\(/)).toEqual(['gate/run/attempt.ts', 'gate/run/run-gate.ts'])
    expect(filesMatching(/\.taken\(/)).toEqual([])
  })

  it('keeps the loop’s state private', () => {
    const file = code(join(SRC, 'gate/run/run-gate.ts'))
    const loop = file.slice(file.indexOf('class GateLoop'), file.indexOf('\n  constructor('))
    const fields = [...loop.matchAll(/^ {2}(?:readonly )?(#?\w+)(?:!?:|\s*=)/gm)].map((m) => m[1] as string)
    const open = fields.filter((f) => !f.startsWith('#'))
    // The run's settled facts, read by every step, are the only public fields; they never change.
    expect(open.sort()).toEqual(['g', 'request', 'runId', 'signal', 'started'])
    for (const name of open) expect(loop).toMatch(new RegExp(`^ {2}readonly ${name}:`, 'm'))
  })

  it('stays small: the attempt machinery within 1,084 lines (1,557 before the one-executor rebuild; +12 when the stop came to cover the second half; +10 when the meter came to bill an answer a user link failed the attempt on; +2 when the context of a link came to be frozen throughout; +2 when the changed request of a link came to be checked like the request of the caller)', () => {
    const lines = MACHINERY.map((f) => readFileSync(join(SRC, f), 'utf8').split('\n').length - 1)
    expect(lines.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1_084)
  })
})
