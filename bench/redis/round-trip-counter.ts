import type { Redis } from 'ioredis'

/** What a {@link RoundTripCounter} has seen since it was made or last reset. */
export interface RoundTripCount {
  /**
   * Round trips: times the client sent a command while none of its commands awaited a reply. The
   * commands of a pipeline (or `MULTI`/`EXEC`), and commands sent together before any reply (as
   * `Promise.all` does on one connection), are one round trip: the caller waits for them once.
   */
  readonly roundTrips: number
  /** Commands sent (a Lua script is one command: `EVALSHA`, or `EVAL`). */
  readonly commands: number
  /** Commands by lower-case name, e.g. `{ evalsha: 5 }`. */
  readonly byName: Readonly<Record<string, number>>
}

/** Counts what one ioredis client sends; see {@link countRoundTrips}. */
export interface RoundTripCounter {
  /** The counts so far (a copy). */
  read(): RoundTripCount
  /** Starts counting from zero again (commands still awaiting a reply stay awaited). */
  reset(): void
  /** Puts the client's own `sendCommand` back; the counts stay readable. */
  detach(): void
}

type Command = Parameters<Redis['sendCommand']>[0]

/**
 * Counts the commands and round trips an ioredis client sends, by wrapping its `sendCommand`, which
 * every command goes through, pipelined or not. A round trip starts when a command leaves while no
 * other awaits its reply, and takes in every command sent before the replies are in: exact for one
 * caller at a time (the bench runs its counted attempts one after the other); concurrent callers
 * share round trips. Counts from the moment it is made: connect the client (its handshake sends
 * commands too) before counting. Only for a single-node client: a `Cluster` routes commands through
 * a client per node.
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
  let awaiting = 0
  let byName: Record<string, number> = {}
  const replied = (): void => {
    awaiting--
  }
  // ioredis declares (command, stream?); a pipeline also passes the node it targets.
  const wrapped = function (this: Redis, command: Command, ...rest: unknown[]): unknown {
    commands++
    const name = String(command.name).toLowerCase()
    byName[name] = (byName[name] ?? 0) + 1
    if (awaiting === 0) roundTrips++
    awaiting++
    // Registered before the caller's own reaction to the reply, so it runs first.
    command.promise.then(replied, replied)
    return (original as (...args: unknown[]) => unknown).call(this, command, ...rest)
  }
  client.sendCommand = wrapped
  return {
    read: () => ({ roundTrips, commands, byName: { ...byName } }),
    reset() {
      roundTrips = 0
      commands = 0
      byName = {}
    },
    detach() {
      if (client.sendCommand === wrapped) client.sendCommand = original
    },
  }
}
