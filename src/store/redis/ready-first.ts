import type { RedisLike } from './redis-like.ts'

/** What ioredis shows of its connection: a `Redis` or a `Cluster` has all of it. */
interface ConnectionFace {
  readonly status?: unknown
  readonly options?: { readonly enableOfflineQueue?: unknown }
  once?(event: string, listener: (...args: unknown[]) => void): unknown
  removeListener?(event: string, listener: (...args: unknown[]) => void): unknown
}

// Statuses from which ioredis gets to `ready` on its own; from `wait` (lazyConnect) only connect() does.
const ON_ITS_WAY = new Set(['connecting', 'connect'])

// Clients seen ready: once a client was ready, a later loss of its server fails calls at once, as
// `enableOfflineQueue: false` asks; only a client that has never been ready yet is waited for.
const seenReady = new WeakSet<object>()

/**
 * Waits for a client that cannot take commands yet: an ioredis client made with
 * `enableOfflineQueue: false` (what the README recommends) refuses every command until it is
 * first `ready` with a bare "Stream isn't writeable". `undefined` when the call can go at once (a
 * ready client, one with an offline queue, one that was ready before and lost its server: that
 * fails at once, as `enableOfflineQueue: false` asks, any client that does not say). A client
 * connecting for the first time is awaited until it is ready, or its connection attempt fails
 * (`close`, `end`), or `timeoutMs` (the store's `commandTimeoutMs`) passes; one that is not on its
 * way (`lazyConnect` before `connect()`, retrying a server it never reached) is refused at once.
 * Every refusal says to await the client's `ready` event.
 */
export function readyFirst(client: RedisLike, timeoutMs: number | undefined): Promise<void> | undefined {
  const face = client as ConnectionFace
  const status = face.status
  if (typeof status !== 'string') return undefined
  if (status === 'ready') {
    seenReady.add(client)
    return undefined
  }
  if (face.options?.enableOfflineQueue !== false || seenReady.has(client)) return undefined
  if (!ON_ITS_WAY.has(status) || typeof face.once !== 'function' || typeof face.removeListener !== 'function') {
    return Promise.reject(notReady(`is not ready (status "${status}") and has no offline queue (enableOfflineQueue: false)`))
  }
  const once = face.once.bind(face)
  const off = face.removeListener.bind(face)
  return new Promise<void>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const settle = (failure: Error | undefined): void => {
      clearTimeout(timer)
      off('ready', ready)
      off('close', closed)
      off('end', closed)
      if (failure === undefined) resolve()
      else reject(failure)
    }
    const ready = (): void => {
      seenReady.add(client)
      settle(undefined)
    }
    const closed = (): void => settle(notReady(`lost its connection before it was ready (status "${String(face.status)}")`))
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => settle(notReady(`was not ready within ${timeoutMs} ms (commandTimeoutMs; status "${String(face.status)}")`)), timeoutMs)
    }
    once('ready', ready)
    once('close', closed)
    once('end', closed)
  })
}

/** The refusal of a call on a client that is not ready, saying what to do. */
function notReady(what: string): Error {
  return new Error(
    `the Redis client ${what}: await its 'ready' event (\`await once(client, 'ready')\`, or \`await client.connect()\` with lazyConnect) before using the store`,
  )
}

/** Notes a client that is ready now (at a store's creation), so that a later loss of its server fails calls at once. */
export function noteIfReady(client: RedisLike): void {
  if ((client as ConnectionFace).status === 'ready') seenReady.add(client)
}
