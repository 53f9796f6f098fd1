import { parentPort, workerData } from 'node:worker_threads'
import { cleanupCorpora } from '../support/corpora.ts'
import { censusOfTool, type PeerCensus } from './peer-schema-census.ts'

// One tool's census of one chunk of the corpus, in a heap of its own (see runPeerSchemaCensus).
const { tool, sample, chunk } = workerData as {
  tool: PeerCensus['tool']
  sample?: { sampleSize: number; seed: number }
  chunk: { offset: number; limit: number }
}
const result = await censusOfTool(tool, sample, chunk)
// This thread unpacked the corpus for itself.
cleanupCorpora()
parentPort?.postMessage(result)
