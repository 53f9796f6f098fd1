import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../../redis/support/redis-server.ts'

/** A `restate-server` (the binary of `@restatedev/restate-server`) started for a test file on free loopback ports. */
export interface RestateServer {
  readonly ingress: string
  readonly admin: string
  /** Stops the server, waits for it to exit and removes its folder. */
  stop(): Promise<void>
  /** SIGKILLs the server and starts it again on the same ports and folder (its log and journals kept); resolves once it answers. */
  restart(): Promise<void>
}

// Starting the 225 MB binary on a loaded 2-core machine: generous.
const READY_TIMEOUT_MS = 60_000

/** The server binary npm installed for this platform, or `undefined`. */
export function restateBinary(): string | undefined {
  try {
    const require = createRequire(import.meta.url)
    const pkg = require.resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/package.json`)
    const bin = join(dirname(pkg), 'bin', 'restate-server')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

/** Starts a single-node Restate server in a temporary folder; throws when the binary is missing or it does not answer. */
export async function startRestateServer(): Promise<RestateServer> {
  const bin = restateBinary()
  if (bin === undefined) throw new Error('the restate-server binary is not installed (npm install @restatedev/restate-server)')
  const dir = mkdtempSync(join(tmpdir(), 'rg-restate-'))
  const [fabric, admin, ingress] = [await freePort(), await freePort(), await freePort()]
  const launch = (): { child: ChildProcess; exited: Promise<void>; output: () => string } => {
    const child = spawn(bin, ['--no-logo'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        RESTATE_BASE_DIR: dir,
        RESTATE_LISTEN_MODE: 'tcp',
        RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
        RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
        RESTATE_DEFAULT_NUM_PARTITIONS: '1',
        RESTATE_DISABLE_TELEMETRY: 'true',
      },
    })
    let output = ''
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    return { child, exited, output: () => output }
  }
  let current = launch()
  const server: RestateServer = {
    ingress: `http://127.0.0.1:${ingress}`,
    admin: `http://127.0.0.1:${admin}`,
    stop: async () => {
      await stopChild(current.child, current.exited)
      rmSync(dir, { recursive: true, force: true })
    },
    restart: async () => {
      await stopChild(current.child, current.exited)
      current = launch()
      await ready()
    },
  }
  const ready = async (): Promise<void> => {
    const deadline = Date.now() + READY_TIMEOUT_MS
    while (!((await answers(`${server.admin}/health`)) && (await answers(`${server.ingress}/restate/health`)))) {
      if (current.child.exitCode !== null || Date.now() > deadline) {
        const output = current.output()
        await server.stop()
        throw new Error(`restate-server did not answer: ${output.slice(-2000)}`)
      }
      await sleep(100)
    }
  }
  await ready()
  return server
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await exited
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
    return response.ok
  } catch {
    return false
  }
}

/** Registers the service endpoint listening on `port` (a worker of the test) with `server` as a deployment. */
export async function registerWorker(server: RestateServer, port: number): Promise<void> {
  const registered = await fetch(`${server.admin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: `http://127.0.0.1:${port}` }),
  })
  if (!registered.ok) throw new Error(`registering the worker failed: ${registered.status} ${await registered.text()}`)
}
