import type { ErrorKind } from '../model/error-kind.ts'

/** JSON data, as a journal holds it. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue }

/** A failed step, as data: a `ProviderError` keeps what the gate's rules read; any other error its name and message. */
export type JournaledFailure =
  | {
      readonly class: 'ProviderError'
      readonly message: string
      readonly kind: ErrorKind
      readonly status?: number
      readonly code?: string
      readonly retryAfterMs?: number
      readonly provider?: string
    }
  | { readonly class: 'Error'; readonly name: string; readonly message: string }

/**
 * One journaled step as the port writes it, plain data an engine stores as JSON: the run it belongs
 * to (`runId`: `memoryDurablePort` refuses an entry of another run; absent in entries written before it was), its
 * position in the run (`seq`, steps and sleeps counted from 0) and name (to detect a replay that
 * diverges), and its outcome. A success without `value` answered `undefined`.
 */
export type JournalEntry =
  | { readonly v: 1; readonly runId?: string; readonly seq: number; readonly name: string; readonly ok: true; readonly value?: JsonValue }
  | { readonly v: 1; readonly runId?: string; readonly seq: number; readonly name: string; readonly ok: false; readonly error: JournaledFailure }
