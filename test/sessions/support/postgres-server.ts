import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { freePort } from '../../redis/support/redis-server.ts'

/** A `postgres` server started for a test file in a temporary folder, on a free loopback port. */
export interface PostgresServer {
  readonly port: number
  /** A connection string for the `postgres` database as the `postgres` user. */
  readonly url: string
  /** Stops the server, waits for it to exit and removes its folder. */
  stop(): Promise<void>
}

const READY_TIMEOUT_MS = 20_000

/** The folder of Debian's PostgreSQL binaries (`/usr/lib/postgresql/<major>/bin`), newest major first; `undefined` when none is installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const majors = readdirSync(root)
    .filter((d) => existsSync(join(root, d, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))
  return majors[0] === undefined ? undefined : join(root, majors[0], 'bin')
}

/** Spawn options that run a PostgreSQL binary as the `postgres` user when this process is root (postgres refuses to run as root). */
function asPostgres(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {}
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim())
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim())
  return { uid, gid }
}

/** Starts a real `postgres` (initdb in a temporary folder, trust auth on loopback); throws when the binaries are missing. */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBin()
  if (bin === undefined) throw new Error('PostgreSQL is not installed: the real-server suites need it (apt-get install postgresql)')
  const dir = mkdtempSync(join(tmpdir(), 'rg-pg-'))
  const user = asPostgres()
  if (user.uid !== undefined && user.gid !== undefined) chownSync(dir, user.uid, user.gid)
  chmodSync(dir, 0o700)
  const data = join(dir, 'data')
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], { encoding: 'utf8', ...user })
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`)
  let lastError: unknown
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort()
    try {
      return await launch(bin, dir, data, port)
    } catch (error) {
      lastError = error
    }
  }
  rmSync(dir, { recursive: true, force: true })
  throw new Error('could not start postgres', { cause: lastError })
}

async function launch(bin: string, dir: string, data: string, port: number): Promise<PostgresServer> {
  const args = ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'max_connections=60']
  const child = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], ...asPostgres() })
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (!(await answers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child, exited)
      throw new Error(`postgres on port ${port} did not answer: ${output.trim()}`)
    }
    await sleep(50)
  }
  return {
    port,
    url,
    stop: async () => {
      await stopChild(child, exited)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  // SIGINT is postgres's fast shutdown.
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT')
  await exited
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}
