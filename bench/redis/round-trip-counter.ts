import type { Redis } from 'ioredis'

/** What a {@link RoundTripCounter} has seen since it was made or last reset. */
export interface RoundTripCount {
  /**
   * Round trips: each command sent on its own is one; a pipeline (or `MULTI`/`EXEC`), however many
   * commands it holds, is one, since its commands leave in one write and the caller waits once.
   */
  readonly roundTrips: number
  /** Commands sent, pipelined or not (a Lua script is one command: `EVALSHA`, or `EVAL`). */
  readonly commands: number
  /** Commands by lower-case name, e.g. `{ evalsha: 5 }`. */
  readonly byName: Readonly<Record<string, number>>
}

/** Counts what one ioredis client sends; see {@link countRoundTrips}. */
export interface RoundTripCounter {
  /** The counts so far (a copy). */
  read(): RoundTripCount
  /** Starts counting from zero again. */
  reset(): void
  /** Puts the client's own `sendCommand` back; the counts stay readable. */
  detach(): void
}

/**
 * Counts the commands and round trips an ioredis client sends, by wrapping its `sendCommand`, which
 * every command goes through: a command sent alone arrives without a stream, and the commands of one
 * pipeline (`client.pipeline()`, `client.multi()`) arrive with the same stream object, so distinct
 * streams count pipelines. Counts from the moment it is made: connect the client (its handshake
 * sends commands too) before counting. Only for a single-node client: a `Cluster` routes commands
 * through a client per node.
 *
 * @example
 * const counter = countRoundTrips(client)
 * await redisStore(client).get('k')
 * counter.read() // { roundTrips: 1, commands: 1, byName: { evalsha: 1 } } once the script is cached
 */
export function countRoundTrips(client: Redis): RoundTripCounter {
  const original = client.sendCommand
  let roundTrips = 0
  let commands = 0
  let byName: Record<string, number> = {}
  let pipelines = new WeakSet<object>()
  // ioredis declares (command, stream?); a pipeline also passes the node it targets.
  const wrapped = function (this: Redis, command: Parameters<Redis['sendCommand']>[0], stream?: object, ...rest: unknown[]): unknown {
    commands++
    const name = String(command.name).toLowerCase()
    byName[name] = (byName[name] ?? 0) + 1
    if (stream === undefined || stream === null) roundTrips++
    else if (!pipelines.has(stream)) {
      pipelines.add(stream)
      roundTrips++
    }
    return (original as (...args: unknown[]) => unknown).call(this, command, stream, ...rest)
  }
  client.sendCommand = wrapped
  return {
    read: () => ({ roundTrips, commands, byName: { ...byName } }),
    reset() {
      roundTrips = 0
      commands = 0
      byName = {}
      pipelines = new WeakSet()
    },
    detach() {
      if (client.sendCommand === wrapped) client.sendCommand = original
    },
  }
}
