import { keyPart } from '../../model/key-part.ts'
import { decodeBreaker, type BreakerRecord } from './breaker-state.ts'

// Entries a cache holds before it starts again: provider names and stored records are few, a flood of them is not kept.
const CACHE_LIMIT = 256

/**
 * The store key of each provider's breaker, made once per provider name rather than concatenated
 * (and hashed again by the store's `Map`) on every acquire and record.
 */
export function cachedKeys(prefix: string): (provider: string) => string {
  const keys = new Map<string, string>()
  return function keyOf(provider) {
    let key = keys.get(provider)
    if (key === undefined) {
      if (keys.size >= CACHE_LIMIT) keys.clear()
      // The name is written as a key part: prefix `a:` with provider `b:c` never shares a record with prefix `a:b:` and provider `c`.
      key = prefix + keyPart(provider)
      keys.set(provider, key)
    }
    return key
  }
}

/**
 * {@link decodeBreaker} remembered by the stored string it decoded: the same string always decodes
 * to the same record, so a breaker whose record did not change since it last read it parses
 * nothing. The records are frozen, since every caller shares them.
 */
export function cachedDecode(): (raw: string | undefined, key: string) => BreakerRecord {
  const records = new Map<string, BreakerRecord>()
  return function decode(raw, key) {
    if (raw === undefined) return decodeBreaker(raw)
    let record = records.get(raw)
    if (record === undefined) {
      if (records.size >= CACHE_LIMIT) records.clear()
      record = Object.freeze(decodeBreaker(raw, key))
      records.set(raw, record)
    }
    return record
  }
}
