import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

/** A `redis-server` started for a test file, on a free loopback port, without persistence. */
export interface RedisServer {
  readonly host: '127.0.0.1'
  readonly port: number
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>
  /** Stops the server and starts a new one on the same port: without persistence, with nothing in it. */
  restart(): Promise<void>
  /** Sends `signal` to the server process: `SIGSTOP` stalls it (it holds every connection and answers nothing), `SIGCONT` wakes it. */
  signal(signal: NodeJS.Signals): void
}

const READY_TIMEOUT_MS = 5_000

/**
 * Starts a real `redis-server`; throws when the binary is missing. Suites that need one are declared
 * with `describeWith(redisServer)` (test/support/requirements.ts): skipped without it, failed under CI.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' })
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error('redis-server is not on PATH: the Redis store tests need a real server (apt-get install redis-server)', { cause: probe.error })
  }
  // A free port can be taken by someone else before redis binds it: try a few.
  let lastError: unknown
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort()
    try {
      return await launch(port)
    } catch (error) {
      lastError = error
    }
  }
  throw new Error('could not start redis-server', { cause: lastError })
}

/** A loopback port nobody listens on (at the time of asking). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

async function launch(port: number): Promise<RedisServer> {
  // Its own folder: a server made a replica saves what it receives there, not in the working directory.
  const dir = mkdtempSync(join(tmpdir(), 'rg-redis-'))
  let current: Awaited<ReturnType<typeof spawnServer>>
  try {
    current = await spawnServer(port, dir)
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    host: '127.0.0.1',
    port,
    async stop() {
      await stopChild(current.child, current.exited)
      rmSync(dir, { recursive: true, force: true })
    },
    async restart() {
      await stopChild(current.child, current.exited)
      current = await spawnServer(port, dir)
    },
    signal(signal) {
      current.child.kill(signal)
    },
  }
}

/** A redis-server on `port` that answers PING. */
async function spawnServer(port: number, dir: string): Promise<{ readonly child: ChildProcess; readonly exited: Promise<void> }> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (!(await pings(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child, exited)
      throw new Error(`redis-server on port ${port} did not answer PING: ${output.trim()}`)
    }
    await sleep(20)
  }
  return { child, exited }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  await exited
}

/** One PING over a raw socket: true on +PONG. */
export function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket()
    const done = (ok: boolean): void => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(500, () => done(false))
    socket.once('error', () => done(false))
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')))
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
  })
}
