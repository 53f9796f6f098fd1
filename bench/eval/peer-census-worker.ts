import { parentPort, workerData } from 'node:worker_threads'
import { censusOfTool, type PeerCensus } from './peer-schema-census.ts'

// One tool's census in a heap of its own (see runPeerSchemaCensus).
const { tool, sample } = workerData as { tool: PeerCensus['tool']; sample?: { sampleSize: number; seed: number } }
parentPort?.postMessage(await censusOfTool(tool, sample))
