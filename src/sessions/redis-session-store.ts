import { isRecord } from '../model/is-record.ts'
import { typeName } from '../model/describe-value.ts'
import type { RedisLike } from '../store/redis/redis-like.ts'
import { type LuaScript, luaScript, runScript } from '../store/redis/run-script.ts'
import { redisCallSettings } from '../store/redis/call-settings.ts'
import { type DurableClient, runDurably, type RedisDurability } from '../store/redis/durable-write.ts'
import { RedisStoreError, type RedisSessionOperation } from '../store/redis/redis-store-error.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { checkAppend, encodeExchange, readConversation } from './exchange-format.ts'
import { SessionFormatError } from './session-format-error.ts'
import { checkSessionId } from './session-id.ts'
import { checkSlotIds, isRevision } from './approval-slots.ts'
import { ttlOption } from './session-ttl.ts'
import { type AppendOutcome, type AppendRequest, type SessionStore, type StoredConversation, staleBy } from './session-store.ts'

/** Options of {@link redisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** Prefix of every key. @default 'rg:session:' */
  readonly keyPrefix?: string
  /** A conversation not appended to for this long expires (`PEXPIRE`; whole ms, at most 100 years). @default no expiry */
  readonly ttlMs?: number
  /**
   * A commit counts only once this many replicas have it (`WAIT replicas timeoutMs` right after it,
   * in the same round trip); otherwise `append` rejects, and the exchange, which may still be on
   * the master, is not known to survive a failover: load the conversation before committing again.
   * Approval records (a pause, a decision, a resume's claim) are written the same way.
   * Needs a client with `pipeline()` (ioredis). @default none
   * @example
   * redisSessionStore(client, { durable: { replicas: 1, timeoutMs: 100 } })
   */
  readonly durable?: RedisDurability
  /**
   * How long a load, commit or delete waits for the server, in ms: past it the call rejects (the
   * command stays with the client until the server answers). A stalled server then costs a turn that
   * long, not the agent's whole deadline. Above `durable.timeoutMs`. @default none
   */
  readonly commandTimeoutMs?: number
  /**
   * Calls sent and not yet answered (timed-out ones included) beyond which a new one rejects at once,
   * unsent: what waits on a stalled server stays bounded. @default 1000
   */
  readonly maxPending?: number
}

/**
 * The options {@link redisSessionStore} takes, checked once at construction. `durable`,
 * `commandTimeoutMs` and `maxPending` are the Redis call settings `redisStore` takes too: read
 * (and checked in depth) by `redisCallSettings`.
 */
export const REDIS_SESSION_STORE = optionsContract<RedisSessionStoreOptions>('redisSessionStore', {
  keyPrefix: option.nonEmptyString(),
  ttlMs: ttlOption,
  durable: option.object(),
  commandTimeoutMs: option.duration(),
  maxPending: option.integer(1),
})

// One list per conversation: one element per exchange, so the version is the list's length and a
// commit is one RPUSH inside one script (Redis runs a script whole, never interleaved).
const APPEND = luaScript(`
local current = redis.call('LLEN', KEYS[1])
if ARGV[2] == 'fail' and current ~= tonumber(ARGV[1]) then return {0, current} end
redis.call('RPUSH', KEYS[1], ARGV[3])
if tonumber(ARGV[4]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return {1, current + 1}`)
// A key of another type (written behind the store's back) answers its type, not an error of Redis's.
const LOAD = luaScript(`
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'list' and kind ~= 'none' then return kind end
return redis.call('LRANGE', KEYS[1], 0, -1)`)
const DELETE = luaScript(`return redis.call('DEL', KEYS[1], KEYS[2])`)
// Approvals: one hash per conversation (same hash tag), one field per approval holding '<rev>\n<body>'. With a ttl
// they expire with their conversation (KEYS[2]: each commit sets both), or a ttl after the pause when it has none yet.
const APPROVAL_CREATE = luaScript(`
local created = redis.call('HSETNX', KEYS[1], ARGV[1], '1\\n' .. ARGV[2])
if created == 1 and tonumber(ARGV[3]) > 0 then
  local left = redis.call('PTTL', KEYS[2])
  if left > 0 then redis.call('PEXPIRE', KEYS[1], left) else redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
end
return created`)
const APPROVAL_READ = luaScript(`return redis.call('HGET', KEYS[1], ARGV[1])`)
const APPROVAL_SWAP = luaScript(`
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
local rev = tonumber(string.match(current, '^(%d+)\\n'))
if rev == nil or rev ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], tostring(rev + 1) .. '\\n' .. ARGV[3])
return 1`)

/**
 * Conversations in Redis, on the same client as `redisStore`: one list per conversation (key
 * `<keyPrefix>{<id>}`, hash-tagged for clusters), one element per exchange, one Lua script per
 * commit. Any number of processes may commit to one conversation.
 *
 * @example
 * import { redisSessionStore } from 'reliability-gate/redis'
 * const agent = Agent.create({ provider, sessions: redisSessionStore(new Redis(), { keyPrefix: 'chat:' }) }).build()
 */
export function redisSessionStore(client: RedisLike, options: RedisSessionStoreOptions = {}): SessionStore {
  if (!isRecord(client) || typeof client.evalsha !== 'function' || typeof client.eval !== 'function') {
    throw new TypeError(`redisSessionStore: client must be an ioredis client (or have evalsha() and eval()), got ${typeName(client)}`)
  }
  const checked = REDIS_SESSION_STORE.check(options)
  const { keyPrefix: prefix = 'rg:session:', ttlMs = 0 } = checked
  const { durable, bounded } = redisCallSettings(client, checked, 'redisSessionStore')
  const durableClient: DurableClient | undefined = durable === undefined ? undefined : { client, durable }
  // A pause, a decision and a resume's claim are written as a commit is: with `durable`, a failover loses none of them
  // (a lost decision would take a second one; a lost claim, a second resume running the call again).
  const write = (script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> =>
    durableClient === undefined ? runScript(client, script, keys, args) : runDurably(durableClient, script, keys, args)
  // The id is the hash tag: a conversation and its approvals share a cluster slot (a delete removes both in one script).
  const tagOf = (id: string): string => `{${braceFree(id)}}`
  const keyOf = (id: string): string => `${prefix}${tagOf(id)}`
  const approvalsOf = (id: string): string => `${prefix}${tagOf(id)}:approvals`
  // Whatever the client throws (refused connection, a command error, a timeout) leaves as a RedisStoreError, cause kept.
  const send = async (operation: RedisSessionOperation, key: string, call: () => Promise<unknown>): Promise<unknown> => {
    try {
      return await bounded(call)
    } catch (error) {
      throw new RedisStoreError(operation, key, error)
    }
  }

  return {
    async load(id: string): Promise<StoredConversation> {
      checkSessionId(id, 'redisSessionStore.load')
      const records = await send('load', keyOf(id), () => runScript(client, LOAD, keyOf(id), []))
      if (typeof records === 'string') {
        throw new SessionFormatError(
          id,
          `session ${JSON.stringify(id)}: the stored conversation cannot be read: its key holds a Redis ${records}, not a list`,
          undefined,
          'key',
        )
      }
      if (!Array.isArray(records)) throw unexpected('load', keyOf(id), records)
      return {
        messages: readConversation(
          id,
          records.map((body: unknown) => ({ body })),
        ),
        version: records.length,
      }
    },
    async append(id: string, request: AppendRequest): Promise<AppendOutcome> {
      const { exchange, expected, fail } = checkAppend(id, request, 'redisSessionStore.append')
      const args = [expected, fail ? 'fail' : 'append', encodeExchange(exchange), ttlMs]
      const reply = await send('append', keyOf(id), () => write(APPEND, [keyOf(id), approvalsOf(id)], args))
      if (!Array.isArray(reply) || (reply[0] !== 0 && reply[0] !== 1) || typeof reply[1] !== 'number') throw unexpected('append', keyOf(id), reply)
      const version = reply[1]
      return reply[0] === 1 ? { committed: true, version, staleBy: staleBy(version - 1, expected) } : { committed: false, version }
    },
    async delete(id: string): Promise<void> {
      checkSessionId(id, 'redisSessionStore.delete')
      const removed = await send('delete', keyOf(id), () => runScript(client, DELETE, [keyOf(id), approvalsOf(id)], []))
      if (typeof removed !== 'number') throw unexpected('delete', keyOf(id), removed)
    },
    approvals: {
      async create(sessionId, approvalId, body) {
        checkSlotIds(sessionId, approvalId, 'redisSessionStore.approvals.create')
        const key = approvalsOf(sessionId)
        return flag(
          'approvals.create',
          key,
          await send('approvals.create', key, () => write(APPROVAL_CREATE, [key, keyOf(sessionId)], [approvalId, body, ttlMs])),
        )
      },
      async read(sessionId, approvalId) {
        checkSlotIds(sessionId, approvalId, 'redisSessionStore.approvals.read')
        const key = approvalsOf(sessionId)
        const held = await send('approvals.read', key, () => runScript(client, APPROVAL_READ, key, [approvalId]))
        if (held === null || held === undefined) return undefined
        // '<rev>\n<body>', as the scripts write it; anything else was not written by this store.
        const found = typeof held === 'string' ? /^(\d+)\n/.exec(held) : null
        if (found === null) throw unexpected('approvals.read', key, held)
        return { rev: Number(found[1]), body: (held as string).slice(found[0].length) }
      },
      async swap(sessionId, approvalId, rev, body) {
        checkSlotIds(sessionId, approvalId, 'redisSessionStore.approvals.swap')
        if (!isRevision(rev)) return false
        const key = approvalsOf(sessionId)
        return flag('approvals.swap', key, await send('approvals.swap', key, () => write(APPROVAL_SWAP, [key], [approvalId, rev, body])))
      },
    },
  }
}

/** The refusal of a reply the store's script cannot have given (a client or proxy answering something else). */
function unexpected(operation: RedisSessionOperation, key: string, reply: unknown): RedisStoreError {
  return new RedisStoreError(operation, key, new Error(`unexpected reply ${typeName(reply)}`))
}

/** A script's 0 or 1 as a boolean; any other reply is refused. */
function flag(operation: RedisSessionOperation, key: string, reply: unknown): boolean {
  if (reply !== 0 && reply !== 1) throw unexpected(operation, key, reply)
  return reply === 1
}

/**
 * `id` as its key holds it, without a brace. An id holding one is written NUL and then its
 * percent-encoding (of `%`, `{` and `}`): no id holds NUL (see `checkSessionId`), so an id is never
 * another's encoding. With no brace inside the tag, a key reads back as one prefix and one id, so
 * two stores of two prefixes (`chat:` with id `acme}:{c1`, `chat:{acme}:` with id `c1`) never share
 * a key; and an id starting with `}` cannot end its tag at once (on a cluster, an empty tag hashes
 * each key whole, in slots of its own, and the delete is refused with CROSSSLOT).
 */
function braceFree(id: string): string {
  if (!id.includes('{') && !id.includes('}')) return id
  return `\u0000${id.replace(/[%{}]/g, (c) => (c === '%' ? '%25' : c === '{' ? '%7B' : '%7D'))}`
}
