import { describe, expect, it } from 'vitest'
import { superviseWorkers } from '../../bench/eval/supervised-workers.ts'

describe('superviseWorkers', () => {
  it('isolates the step that kills a worker (out of heap, over time), counts it, and goes on with every other item', async () => {
    const script = new URL('./support/dying-worker.ts', import.meta.url)
    const { results, failures } = await superviseWorkers<null, number[]>(script, null, [0, 1, 2, 3, 4, 5, 6, 7, 8], { heapMb: 64, stepSeconds: 2, chunk: 9 })
    expect(failures.map(({ index, step }) => ({ index, step }))).toEqual([
      { index: 3, step: 1 },
      { index: 5, step: 2 },
    ])
    expect(failures[0]?.why).toBe('out of memory (heap 64 MB)')
    expect(failures[1]?.why).toBe('over 2 s')
    // Every item ends with a result: the failed steps counted (negative), the others run.
    expect([...results.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(results.get(3)).toEqual([0, -1, 2])
    expect(results.get(5)).toEqual([0, 1, -2])
    // Item 7 died only after item 6 filled the same heap: run again in a fresh worker, it is not blamed.
    expect(results.get(7)).toEqual([0, 1, 2])
  }, 120_000)
})
