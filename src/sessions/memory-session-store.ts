import { isRecord } from '../model/is-record.ts'
import { typeName } from '../model/describe-value.ts'
import { checkAppend, checkId, checkTtl, decodeExchange, encodeExchange } from './exchange-format.ts'
import { type AppendOutcome, type AppendRequest, type SessionStore, type StoredConversation, staleBy } from './session-store.ts'

/** Options of {@link memorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** A conversation not appended to for this long is erased. @default no expiry */
  readonly ttlMs?: number
  /** The clock expiry reads (tests). @default Date.now */
  readonly now?: () => number
}

interface Entry {
  /** Each committed exchange as stored text: the store keeps its own copy, never the caller's objects. */
  readonly records: string[]
  expiresAt: number
}

/**
 * Conversations in this process's memory: the default store of an agent. Each exchange is kept as
 * the same versioned text the other stores write, so a load hands out fresh copies.
 *
 * @example
 * const agent = Agent.create({ provider, sessions: memorySessionStore({ ttlMs: 3_600_000 }) }).build()
 */
export function memorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  if (!isRecord(options)) throw new TypeError(`memorySessionStore: options must be an object, got ${typeName(options)}`)
  const ttlMs = checkTtl(options.ttlMs, 'memorySessionStore')
  const now = options.now ?? Date.now
  if (typeof now !== 'function') throw new TypeError(`memorySessionStore: now must be a function, got ${typeName(now)}`)
  const conversations = new Map<string, Entry>()

  const live = (id: string): Entry | undefined => {
    const entry = conversations.get(id)
    if (entry !== undefined && entry.expiresAt <= now()) {
      conversations.delete(id)
      return undefined
    }
    return entry
  }

  return {
    async load(id: string): Promise<StoredConversation> {
      checkId(id, 'memorySessionStore.load')
      const entry = live(id)
      if (entry === undefined) return { messages: [], version: 0 }
      return { messages: entry.records.flatMap((record) => decodeExchange(id, record)), version: entry.records.length }
    },
    async append(id: string, request: AppendRequest): Promise<AppendOutcome> {
      const { exchange, expected, fail } = checkAppend(id, request, 'memorySessionStore.append')
      const entry = live(id) ?? { records: [], expiresAt: Number.POSITIVE_INFINITY }
      const current = entry.records.length
      if (fail && current !== expected) return { committed: false, version: current }
      entry.records.push(encodeExchange(exchange))
      entry.expiresAt = ttlMs === undefined ? Number.POSITIVE_INFINITY : now() + ttlMs
      conversations.set(id, entry)
      return { committed: true, version: current + 1, staleBy: staleBy(current, expected) }
    },
    async delete(id: string): Promise<void> {
      checkId(id, 'memorySessionStore.delete')
      conversations.delete(id)
    },
  }
}
