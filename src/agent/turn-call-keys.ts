import { keyPart } from '../model/key-part.ts'
/**
 * The key of each tool call of one model turn, by position: the call's id, numbered when the model
 * repeats it within the turn (`dup`, `dup#2`, or the next number no call of the turn took, so a
 * model's own id `dup#2` never shares a key). Two calls of a turn never share a key: a key names
 * one call's approval, its durable step and its idempotency key (`<runId>:<turn>:<key>`).
 *
 * @example
 * turnCallKeys([{ id: 'dup' }, { id: 'dup' }, { id: 'dup#2' }]) // ['dup', 'dup#2', 'dup#2#2']
 */
export function turnCallKeys(calls: readonly { readonly id: string }[]): string[] {
  const taken = new Set<string>()
  return calls.map(({ id }) => {
    let key = id
    for (let n = 2; taken.has(key); n++) key = `${id}#${n}`
    taken.add(key)
    return key
  })
}

/**
 * The idempotency key of the call keyed `callKey` (see {@link turnCallKeys}) of model turn `turn` of run `runId`:
 * `<runId>:<turn>:<callKey>`, with `%` and `:` in the run id and the call key written `%25` and `%3A`, so that no
 * two runs' keys meet (run `a` with a call `1:x` and run `a:1` with a call `x` would both be `a:1:1:x`).
 */
export function idempotencyKeyOf(runId: string, turn: number, callKey: string): string {
  return `${keyPart(runId)}:${turn}:${keyPart(callKey)}`
}
