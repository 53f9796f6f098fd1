import { createHash } from 'node:crypto'
import type { JsonSchema } from '../../model/request.ts'

// One digest per schema object: a gate sends the same frozen schema on every request.
const digests = new WeakMap<object, string>()

/**
 * The identity of a schema's content: the SHA-256 of its JSON text (two equal schemas written as
 * two objects share it), or `undefined` for a schema JSON cannot write (a cycle, a bigint).
 */
export function schemaDigest(schema: JsonSchema): string | undefined {
  const known = digests.get(schema)
  if (known !== undefined) return known
  let text: string | undefined
  try {
    text = JSON.stringify(schema)
  } catch {
    return undefined
  }
  if (text === undefined) return undefined
  const digest = createHash('sha256').update(text).digest('hex')
  digests.set(schema, digest)
  return digest
}
