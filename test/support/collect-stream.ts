/** Reads a stream (a gate's or an agent's) to its end and returns every event, in order. */
export async function collect<E>(stream: AsyncIterable<E>): Promise<E[]> {
  const out: E[] = []
  for await (const e of stream) out.push(e)
  return out
}
