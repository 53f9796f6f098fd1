import { assertString } from '../../model/argument-checks.ts'
import { hasBrand } from '../../model/brand.ts'
import { messageOf } from '../../model/message-of.ts'

const BRAND = Symbol.for('reliability-gate.RedisStoreError')

/** Which store operation failed: one of `redisStore`'s, or of `redisSessionStore`'s (`load` and after). */
export type RedisStoreOperation =
  | 'get'
  | 'set'
  | 'increment'
  | 'compareAndSet'
  | 'reserve'
  | 'settle'
  | 'load'
  | 'append'
  | 'delete'
  | 'approvals.create'
  | 'approvals.read'
  | 'approvals.swap'

/** The operations of `redisSessionStore`, whose errors name that store. */
export type RedisSessionOperation = Extract<RedisStoreOperation, 'load' | 'append' | 'delete' | `approvals.${string}`>

const SESSION_OPERATIONS: ReadonlySet<RedisStoreOperation> = new Set<RedisSessionOperation>([
  'load',
  'append',
  'delete',
  'approvals.create',
  'approvals.read',
  'approvals.swap',
])

/**
 * A Redis store operation failed (`redisStore`'s, or `redisSessionStore`'s): the server is
 * unreachable, refused the command, or answered something unexpected. The original client error is
 * the `cause`. The gate treats it like any failing store: breakers and rate limits let calls
 * through, a shared budget fails the run, a conversation's commit fails with `session-store-failed`.
 */
export class RedisStoreError extends Error {
  override readonly name = 'RedisStoreError'
  readonly operation: RedisStoreOperation
  /** The full key (prefix included). */
  readonly key: string
  readonly [BRAND] = true

  constructor(operation: RedisStoreOperation, key: string, cause: unknown) {
    assertString(operation, 'RedisStoreError: operation')
    assertString(key, 'RedisStoreError: key')
    super(`${SESSION_OPERATIONS.has(operation) ? 'redisSessionStore' : 'redisStore'}: ${operation} of "${key}" failed: ${messageOf(cause)}`, { cause })
    this.operation = operation
    this.key = key
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isRedisStoreError(value: unknown): value is RedisStoreError {
  return hasBrand(value, BRAND)
}
