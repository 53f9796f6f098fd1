import { option, optionsContract } from '../model/options-contract.ts'
import { checkAppend, encodeExchange, readConversation } from './exchange-format.ts'
import { checkSessionId } from './session-id.ts'
import { memoryApprovalSlots } from './approval-slots.ts'
import { ttlOption } from './session-ttl.ts'
import { type AppendOutcome, type AppendRequest, type SessionStore, type StoredConversation, staleBy } from './session-store.ts'

/** Options of {@link memorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** A conversation not appended to for this long is erased (whole ms, at most 100 years). @default no expiry */
  readonly ttlMs?: number
  /** The clock expiry reads (tests). @default Date.now */
  readonly now?: () => number
}

/** The options {@link memorySessionStore} takes, checked once at construction. */
export const MEMORY_SESSION_STORE = optionsContract<MemorySessionStoreOptions>('memorySessionStore', { ttlMs: ttlOption, now: option.function() })

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
  const { ttlMs, now = Date.now } = MEMORY_SESSION_STORE.check(options)
  const conversations = new Map<string, Entry>()
  const approvals = memoryApprovalSlots()

  const live = (id: string): Entry | undefined => {
    const entry = conversations.get(id)
    if (entry !== undefined && entry.expiresAt <= now()) {
      // Erased as by delete: the approvals it was paused on go with it.
      conversations.delete(id)
      approvals.forget(id)
      return undefined
    }
    return entry
  }

  return {
    async load(id: string): Promise<StoredConversation> {
      checkSessionId(id, 'memorySessionStore.load')
      const entry = live(id)
      if (entry === undefined) return { messages: [], version: 0 }
      return {
        messages: readConversation(
          id,
          entry.records.map((body) => ({ body })),
        ),
        version: entry.records.length,
      }
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
      checkSessionId(id, 'memorySessionStore.delete')
      conversations.delete(id)
      approvals.forget(id)
    },
    // An approval of a conversation that expired is erased with it, whether the conversation was read since or not.
    approvals: {
      async create(sessionId, approvalId, body) {
        live(sessionId)
        const created = await approvals.create(sessionId, approvalId, body)
        // A pause before the conversation's first exchange starts its life: it is erased a ttl later unless a commit comes.
        if (created && ttlMs !== undefined && !conversations.has(sessionId)) conversations.set(sessionId, { records: [], expiresAt: now() + ttlMs })
        return created
      },
      read(sessionId, approvalId) {
        live(sessionId)
        return approvals.read(sessionId, approvalId)
      },
      swap(sessionId, approvalId, rev, body) {
        live(sessionId)
        return approvals.swap(sessionId, approvalId, rev, body)
      },
    },
  }
}
