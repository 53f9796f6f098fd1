import { option } from '../model/options-contract.ts'

/**
 * The longest `ttlMs` of a session store: 100 years. A conversation's expiry is a timestamp the
 * store compares (or Redis `PEXPIRE`), never a timer, so it may exceed the 2^31 ms a timer holds.
 */
export const MAX_SESSION_TTL_MS = 3_155_760_000_000

/** The check of a session store's `ttlMs`: whole milliseconds from 1 to {@link MAX_SESSION_TTL_MS}. */
export const ttlOption = option.where(
  `a whole number of milliseconds from 1 to ${MAX_SESSION_TTL_MS} (100 years)`,
  (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_SESSION_TTL_MS,
)
