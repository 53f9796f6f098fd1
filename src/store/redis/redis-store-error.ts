import { hasBrand } from '../../model/brand.ts'
import { messageOf } from '../../model/message-of.ts'

const BRAND = Symbol.for('reliability-gate.RedisStoreError')

/** Which store operation failed. */
export type RedisStoreOperation = 'get' | 'set' | 'increment' | 'compareAndSet' | 'reserve' | 'settle'

/**
 * A Redis store operation failed: the server is unreachable, refused the command, or answered
 * something unexpected. The original client error is the `cause`. The gate treats it like any
 * failing store: breakers and rate limits let calls through, a shared budget fails the run.
 */
export class RedisStoreError extends Error {
  override readonly name = 'RedisStoreError'
  readonly operation: RedisStoreOperation
  /** The full key (prefix included). */
  readonly key: string
  readonly [BRAND] = true

  constructor(operation: RedisStoreOperation, key: string, cause: unknown) {
    super(`redisStore: ${operation} of "${key}" failed: ${messageOf(cause)}`, { cause })
    this.operation = operation
    this.key = key
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isRedisStoreError(value: unknown): value is RedisStoreError {
  return hasBrand(value, BRAND)
}
