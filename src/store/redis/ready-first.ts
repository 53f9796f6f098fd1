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
 * ready client, one with an offline queue, one that was ready before and lost its server, any
 * client that does not say). A client connecting for the first time is awaited up to `timeoutMs`
 * (the store's `commandTimeoutMs`); one that is not on its way (`lazyConnect` before `connect()`,
 * retrying a server it never reached, closed), or without a `commandTimeoutMs` to bound the wait,
 * is refused with an error that says to await its `ready` event.
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
  const refuse = (why: string): Promise<never> =>
    Promise.reject(
      new Error(
        `the Redis client is not ready (status "${status}") and has no offline queue (enableOfflineQueue: false)${why}: await its 'ready' event (e.g. \`await once(client, 'ready')\`, or \`await client.connect()\` with lazyConnect) before using the store`,
      ),
    )
  if (!ON_ITS_WAY.has(status) || typeof face.once !== 'function' || typeof face.removeListener !== 'function') return refuse('')
  if (timeoutMs === undefined) return refuse(' and the store has no commandTimeoutMs to bound a wait')
  const once = face.once.bind(face)
  const off = face.removeListener.bind(face)
  return new Promise<void>((resolve, reject) => {
    const ready = (): void => {
      seenReady.add(client)
      clearTimeout(timer)
      off('end', ended)
      resolve()
    }
    const ended = (): void => {
      clearTimeout(timer)
      off('ready', ready)
      reject(new Error(`the Redis client closed before it was ready: await its 'ready' event before using the store`))
    }
    const timer = setTimeout(() => {
      off('ready', ready)
      off('end', ended)
      reject(
        new Error(
          `the Redis client was not ready within ${timeoutMs} ms (commandTimeoutMs, status "${String(face.status)}"): await its 'ready' event before using the store`,
        ),
      )
    }, timeoutMs)
    once('ready', ready)
    once('end', ended)
  })
}

/** Notes a client that is ready now (at a store's creation), so that a later loss of its server fails calls at once. */
export function noteIfReady(client: RedisLike): void {
  if ((client as ConnectionFace).status === 'ready') seenReady.add(client)
}
