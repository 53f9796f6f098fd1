import type { Redis } from 'ioredis'

/** What the server says it did: from `INFO commandstats` and `INFO cpu`. */
export interface ServerStats {
  /** Calls per command, by lower-case name (`evalsha`, `get`, ...), since the last `CONFIG RESETSTAT`. */
  readonly calls: Readonly<Record<string, number>>
  /** Microseconds spent executing each command (not reading or writing the socket). */
  readonly usec: Readonly<Record<string, number>>
  /** CPU seconds the server process used since it started, user + system. */
  readonly cpuSeconds: number
}

/** Commands the bench itself sends to read the figures; never counted as the policies' work. */
export const OWN_COMMANDS: readonly string[] = ['info', 'config|resetstat', 'config', 'ping', 'flushall', 'flushdb']

/** Reads the command and CPU statistics of the server `admin` is connected to. */
export async function serverStats(admin: Redis): Promise<ServerStats> {
  const text = await admin.info('commandstats', 'cpu')
  return parseServerStats(text)
}

/** Parses the text of `INFO commandstats cpu`. */
export function parseServerStats(text: string): ServerStats {
  const calls: Record<string, number> = {}
  const usec: Record<string, number> = {}
  let user = 0
  let sys = 0
  for (const line of text.split(/\r?\n/)) {
    const stat = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line)
    if (stat !== null) {
      const name = (stat[1] as string).toLowerCase()
      calls[name] = Number(stat[2])
      usec[name] = Number(stat[3])
      continue
    }
    const cpu = /^used_cpu_(user|sys):([\d.]+)/.exec(line)
    if (cpu !== null) {
      if (cpu[1] === 'user') user = Number(cpu[2])
      else sys = Number(cpu[2])
    }
  }
  return { calls, usec, cpuSeconds: user + sys }
}

/** Commands that run a Lua script or function: each is one command of the client, whatever it runs. */
const SCRIPT_COMMANDS: readonly string[] = ['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']

/** The server's work between two readings, without the bench's own commands. */
export interface ServerWork {
  /** Commands the server counted, the ones run inside Lua scripts included (Redis counts both). */
  readonly commands: number
  /** Scripts run (`EVAL`, `EVALSHA`, `FCALL` and their read-only forms). */
  readonly scripts: number
  /** Microseconds spent executing those scripts (the commands inside them included). */
  readonly scriptUsec: number
  /** CPU seconds the server process used meanwhile (execution, socket reads and writes, housekeeping). */
  readonly cpuSeconds: number
}

/** What the server did between `before` and `after` (two {@link serverStats} of one server run). */
export function serverWork(before: ServerStats, after: ServerStats): ServerWork {
  let commands = 0
  let scripts = 0
  let scriptUsec = 0
  for (const [name, n] of Object.entries(after.calls)) {
    if (OWN_COMMANDS.includes(name)) continue
    const calls = n - (before.calls[name] ?? 0)
    commands += calls
    if (!SCRIPT_COMMANDS.includes(name)) continue
    scripts += calls
    scriptUsec += (after.usec[name] ?? 0) - (before.usec[name] ?? 0)
  }
  return { commands, scripts, scriptUsec, cpuSeconds: after.cpuSeconds - before.cpuSeconds }
}
