import type { JsonSchema } from '../../model/request.ts'
import { sha256Hex } from '../../model/sha256.ts'

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
  const digest = sha256Hex(text)
  digests.set(schema, digest)
  return digest
}
