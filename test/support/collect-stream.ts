import type { GateStreamEvent } from '../../src/index.ts'

/** Reads a gate stream to its end and returns every event, in order. */
export async function collect<T>(stream: AsyncIterable<GateStreamEvent<T>>): Promise<GateStreamEvent<T>[]> {
  const out: GateStreamEvent<T>[] = []
  for await (const e of stream) out.push(e)
  return out
}
