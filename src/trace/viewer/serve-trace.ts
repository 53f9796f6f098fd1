import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { option, optionsContract } from '../../model/options-contract.ts'
import { assertNonEmptyString, optionsObject } from '../../model/options-object.ts'
import { tracePageOf } from './trace-page.ts'

/** Options of {@link serveTrace}. */
export interface ServeTraceOptions {
  /** @default 0 (any free port) */
  readonly port?: number
  /** Only the loopback interface by default: a trace holds model outputs and may hold personal data. @default '127.0.0.1' */
  readonly host?: string
}

/** A running viewer. */
export interface TraceServer {
  /** Where the page is, e.g. `http://127.0.0.1:43121/`. */
  readonly url: string
  close(): Promise<void>
}

/** The options of {@link serveTrace}, declared once. */
export const SERVE_TRACE = optionsContract<ServeTraceOptions>('serveTrace', {
  port: option.integer(0, 65535),
  host: option.nonEmptyString(),
})

/** The loopback names of this machine: on one of them, the viewer answers requests naming it only. */
const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1'])

/**
 * Serves the viewer page of a trace file; the file is read again on every page load. On a loopback
 * host (the default) a request whose `Host` names another host is refused (403).
 */
export async function serveTrace(path: string, given?: ServeTraceOptions): Promise<TraceServer> {
  assertNonEmptyString(path, 'serveTrace: path')
  const options = SERVE_TRACE.check(optionsObject(given, 'serveTrace'))
  const host = options.host ?? '127.0.0.1'
  // The names a browser on this machine reaches the page by, set once listening (the port is known then).
  let hosts: ReadonlySet<string> | undefined
  const server: Server = createServer((req, res) => {
    // On loopback, a Host header naming anything else is a page whose name was rebound to 127.0.0.1 (DNS
    // rebinding): answering it would hand the trace to that page's script.
    if (hosts !== undefined && !hosts.has((req.headers.host ?? '').toLowerCase())) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden: the viewer answers only to its own loopback address')
      return
    }
    if (req.method !== 'GET' || (req.url !== '/' && req.url !== '/index.html')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    tracePageOf(path).then(
      (html) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html),
      (error: unknown) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  if (LOOPBACK.has(host)) hosts = new Set([...LOOPBACK].map((name) => `${name.includes(':') ? `[${name}]` : name}:${port}`))
  return {
    url: `http://${host}:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
