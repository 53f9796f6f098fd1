/**
 * Child process of `npm run bench`: prepares ONE contender for ONE scenario in a fresh V8, checks its
 * accepted value, times it (and, when asked, measures heap per call) and prints one JSON line.
 *
 * Each contender runs alone so that no other library's (or other configuration's) type feedback
 * shapes how V8 compiles its code: in a shared process, code that another contender also drives
 * (the AI SDK middleware runs the same gate) can stay in V8's mid tier for the whole measurement.
 *
 * `node --expose-gc --min-semi-space-size=64 --max-semi-space-size=64 bench/measure-one.ts <scenario> <contender> <minCpuMs> <heap 0|1>`
 */
import { isDeepStrictEqual } from 'node:util'
import { CONTENDERS, isUnsupported } from './contenders/index.ts'
import { expectedValue, SCENARIOS } from './scenarios.ts'
import { heapPerCall, timeCall, type TimeStats } from './support/measure.ts'

/** What a child reports for its contender. */
export type ChildReport =
  | { readonly status: 'ok'; readonly note?: string; readonly time: TimeStats; readonly heapBytesPerCall?: number }
  | { readonly status: 'unsupported' | 'error'; readonly reason: string }

async function measureOne(scenarioId: string, name: string, minCpuMs: number, heap: boolean): Promise<ChildReport> {
  const scenario = SCENARIOS.find((s) => s.id === scenarioId)
  const entry = CONTENDERS.find((c) => c.name === name)
  if (scenario === undefined || entry === undefined) return { status: 'error', reason: `unknown scenario ${scenarioId} or contender ${name}` }
  const contender = await entry.load()
  if (contender.name !== entry.name) return { status: 'error', reason: `contender ${name} loaded as ${contender.name}` }
  const prepared = await contender.prepare(scenario)
  if (isUnsupported(prepared)) return { status: 'unsupported', reason: prepared.unsupported }
  // Sanity check: every contender must end with the same accepted value.
  let value: unknown
  try {
    const result = await prepared.call()
    value = prepared.unwrap === undefined ? result : prepared.unwrap(result)
  } catch (error) {
    return { status: 'error', reason: `threw: ${(error as Error).message}` }
  }
  if (!isDeepStrictEqual(value, expectedValue(scenario))) return { status: 'error', reason: `wrong value: ${JSON.stringify(value)}` }
  // A fresh V8 tiers code up over its first few hundred milliseconds; time the settled code (after
  // 300 ms the production row still ran at 1.6x its settled time; 600 ms settles every row here).
  const warmUntil = performance.now() + Math.max(600, minCpuMs * 1.5)
  while (performance.now() < warmUntil) await prepared.call()
  const time = await timeCall(prepared.call, minCpuMs)
  const bytes = heap ? await heapPerCall(prepared.call, 100, 25) : undefined
  return {
    status: 'ok',
    ...(prepared.note !== undefined ? { note: prepared.note } : {}),
    time,
    ...(bytes !== undefined ? { heapBytesPerCall: bytes } : {}),
  }
}

const [scenarioId = '', name = '', minCpuMs = '200', heap = '0'] = process.argv.slice(2)
// instructor-js logs every retry with console.warn; printing would measure the terminal.
console.warn = () => {}
console.error = () => {}
process.stdout.write(`${JSON.stringify(await measureOne(scenarioId, name, Number(minCpuMs), heap === '1'))}\n`)
