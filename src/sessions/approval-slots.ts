import { checkSessionId } from './session-id.ts'

/** One stored approval: its revision (1 when created, one more on each swap) and its text. */
export interface ApprovalSlot {
  readonly rev: number
  readonly body: string
}

/**
 * Where a session store keeps the tool-call approvals its conversations are paused on (the
 * store's `approvals`): one text per session and approval id, replaced only by compare-and-set, so
 * a decision and a resume are each claimed once across every process sharing the store. Erased
 * with the conversation (`store.delete(id)`).
 */
export interface ApprovalSlots {
  /** Stores `body` as revision 1 of the approval unless it exists (then answers `false`). */
  create(sessionId: string, approvalId: string, body: string): Promise<boolean>
  /** The approval's revision and text; `undefined` when the session holds no such approval. */
  read(sessionId: string, approvalId: string): Promise<ApprovalSlot | undefined>
  /** Replaces the approval's text if its revision is still `rev` (compare-and-set): `true` when it did. */
  swap(sessionId: string, approvalId: string, rev: number, body: string): Promise<boolean>
}

/** The longest approval id a store is handed. */
export const MAX_APPROVAL_ID = 100

/** Checks the ids a store is handed (the callers check them first: this is the store's own rule). */
export function checkSlotIds(sessionId: string, approvalId: unknown, label: string): void {
  checkSessionId(sessionId, label)
  if (typeof approvalId !== 'string' || approvalId === '' || approvalId.length > MAX_APPROVAL_ID || !/^[\w:.-]+$/.test(approvalId))
    throw new TypeError(`${label}: an approval id is 1 to ${MAX_APPROVAL_ID} letters, digits, '_', ':', '.' or '-'`)
}

/**
 * Whether `rev` is a revision an approval can be at: a whole number from 1. A swap at any other
 * (`NaN`, `1.5`, `'1'`, `2 ** 31`, past a SQL integer column) swaps nothing, in every store alike.
 */
export function isRevision(rev: unknown): rev is number {
  return typeof rev === 'number' && Number.isSafeInteger(rev) && rev >= 1
}

/** Approvals in this process's memory, each as its own text: the memory session store's, and an in-memory session's. */
export function memoryApprovalSlots(): ApprovalSlots & { forget(sessionId: string): void } {
  const sessions = new Map<string, Map<string, ApprovalSlot>>()
  return {
    async create(sessionId, approvalId, body) {
      checkSlotIds(sessionId, approvalId, 'approvals.create')
      const held = sessions.get(sessionId) ?? new Map<string, ApprovalSlot>()
      if (held.has(approvalId)) return false
      held.set(approvalId, { rev: 1, body })
      sessions.set(sessionId, held)
      return true
    },
    async read(sessionId, approvalId) {
      checkSlotIds(sessionId, approvalId, 'approvals.read')
      return sessions.get(sessionId)?.get(approvalId)
    },
    async swap(sessionId, approvalId, rev, body) {
      checkSlotIds(sessionId, approvalId, 'approvals.swap')
      if (!isRevision(rev)) return false
      const held = sessions.get(sessionId)
      const slot = held?.get(approvalId)
      if (held === undefined || slot === undefined || slot.rev !== rev) return false
      held.set(approvalId, { rev: rev + 1, body })
      return true
    },
    forget(sessionId) {
      sessions.delete(sessionId)
    },
  }
}
