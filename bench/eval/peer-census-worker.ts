import { parentPort, workerData } from 'node:worker_threads'
import { cleanupCorpora } from '../support/corpora.ts'
import { type CensusWork, censusOfTool } from './peer-schema-census.ts'
import { markStep, type SupervisedInput } from './supervised-workers.ts'

// One tool's census of some schemas of the corpus, in a bounded heap of its own, under superviseWorkers
// (see runPeerSchemaCensus): each step marked in shared memory, each schema's counts posted as it ends.
const { data, indices, failed, progress } = workerData as SupervisedInput<CensusWork>
await censusOfTool(
  data.tool,
  data.sample,
  indices,
  (index, step) => markStep(progress, index, step),
  failed,
  (index, result) => parentPort?.postMessage({ index, result }),
)
// This thread unpacked the corpus for itself.
cleanupCorpora()
