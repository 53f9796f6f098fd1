import type { ApprovalSlots } from './approval-slots.ts'
import type { Message } from '../model/message.ts'

/** A conversation as a store holds it: its messages, oldest first, and its version. */
export interface StoredConversation {
  /** Every committed message, oldest first (the exchanges, each whole, in commit order). */
  readonly messages: readonly Message[]
  /** How many exchanges were committed: 0 for a conversation the store does not know (or erased, or expired). */
  readonly version: number
}

/**
 * What a commit does when the conversation moved on since the run loaded it (another run committed):
 * `append` commits the exchange after the newer ones, and the result says it was computed on an
 * older version; `fail` commits nothing (the run fails with kind `session-conflict`).
 */
export type OnConflict = 'append' | 'fail'

/** One commit: the exchange of an accepted run and the version the run started from. */
export interface AppendRequest {
  /** The accepted exchange (user message, tool turns with their results, answer): never an ephemeral message. */
  readonly exchange: readonly Message[]
  /** The conversation's version when the run loaded it. */
  readonly expectedVersion: number
  /** @default 'append' */
  readonly onConflict?: OnConflict
}

/** What a commit did. */
export type AppendOutcome =
  /** Committed whole: the conversation is now at `version`; `staleBy` versions were committed in between (0 when none). */
  | { readonly committed: true; readonly version: number; readonly staleBy: number }
  /** Nothing written (`onConflict: 'fail'` and the conversation is at `version`, not the expected one). */
  | { readonly committed: false; readonly version: number }

/**
 * Where conversations live (the agent's `sessions` option): memory, SQLite, Redis, PostgreSQL or your own.
 * Every store keeps the same promises: an exchange is appended in one atomic write or not at all,
 * concurrent appends never interleave or lose an exchange, and only accepted exchanges are stored.
 * Each stored exchange carries the format version it was written in; a store refuses to read a newer
 * one with a `SessionFormatError`.
 */
export interface SessionStore {
  /** The conversation's messages and version; an unknown conversation is `{ messages: [], version: 0 }`. */
  load(id: string): Promise<StoredConversation>
  /** Appends one exchange atomically if the version is still `expectedVersion` (or anyway, with `onConflict: 'append'`). */
  append(id: string, request: AppendRequest): Promise<AppendOutcome>
  /** Erases every record of the conversation (its messages and version, and the approvals it holds). */
  delete(id: string): Promise<void>
  /**
   * Optional: the tool-call approvals the store's conversations are paused on (a tool's
   * `needsApproval` in a run without an engine). The library's stores have them; without them a
   * paused run cannot be parked (`ApprovalError` `no-approval-store`).
   */
  readonly approvals?: ApprovalSlots
}

/** How many versions a conversation moved on past the one a run started from (a conversation erased meanwhile counts as 1 at least). */
export function staleBy(current: number, expected: number): number {
  return current === expected ? 0 : Math.max(1, current - expected)
}
