import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const CHILD = fileURLToPath(new URL('../support/runs-across-full-gc.ts', import.meta.url))

/** The functions of the library V8 deoptimised after the marker, with why. */
function deoptsAfterCollection(output: string): string[] {
  const after = output.slice(output.indexOf('=== full collection'))
  const found: string[] = []
  for (const line of after.split('\n')) {
    const match = /SharedFunctionInfo ([^>]+)>.*reason: ([^\]]+)\]/.exec(line)
    if (match !== null && /embedded weak objects cleared/.test(match[2] as string)) found.push(`${match[1]}: ${match[2]}`)
  }
  return found
}

describe('the hidden classes of a run, kept across full collections', () => {
  it('after a full GC between runs, no optimised function of the gate or the agent is thrown away for a dropped hidden class', async () => {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--expose-gc', '--trace-deopt', CHILD, '3000'], { timeout: 120_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
        error !== null ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      )
    })
    expect(output).toContain('=== done')
    expect(deoptsAfterCollection(output)).toEqual([])
  }, 150_000)
})
