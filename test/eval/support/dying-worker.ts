import { parentPort, workerData } from 'node:worker_threads'
import { markStep, type SupervisedInput } from '../../../bench/eval/supervised-workers.ts'

// A worker for superviseWorkers' test: item 3 fills the heap in step 1, item 5 spins forever in step 2,
// item 7 fills the heap only after item 6 in the same worker (a cumulative death, not item 7's fault).
const { indices, failed, progress } = workerData as SupervisedInput<null>
const kept: unknown[] = []
for (const index of indices) {
  const counted: number[] = []
  for (const step of [0, 1, 2]) {
    if (failed.some((f) => f.index === index && f.step === step)) {
      counted.push(-step)
      continue
    }
    markStep(progress, index, step)
    if (index === 3 && step === 1) for (;;) kept.push(new Array(1_000_000).fill(index))
    if (index === 5 && step === 2) for (;;) {}
    if (index === 6 && step === 0) for (let i = 0; i < 4; i++) kept.push(new Array(1_000_000).fill(index))
    if (index === 7 && step === 0 && kept.length > 0) for (;;) kept.push(new Array(1_000_000).fill(index))
    counted.push(step)
  }
  parentPort?.postMessage({ index, result: counted })
}
