import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly body: any
  /** Set when the client hung up before the server finished its reply (e.g. an aborted stream). */
  clientClosedEarly: boolean
  /** SSE frames written before the reply ended or the client left. */
  framesWritten: number
}

/** What the server answers to one request. */
export type Reply =
  | { readonly kind: 'json'; readonly status?: number; readonly headers?: Record<string, string>; readonly body: unknown }
  | {
      readonly kind: 'sse'
      readonly frames: readonly string[]
      readonly frameDelayMs?: number
      readonly headers?: Record<string, string>
      /** Leave the response open after the frames (a server that never ends its stream). */
      readonly open?: boolean
      /** Reset the connection after the frames (a stream cut by the network). */
      readonly reset?: boolean
    }
  | { readonly kind: 'raw'; readonly status: number; readonly contentType: string; readonly body: string }
  | { readonly kind: 'reset' }
  | { readonly kind: 'hang'; readonly ms: number; readonly then: Reply }

/** Computes the reply to the n-th request (0-based). */
export type ReplyFn = (request: RecordedRequest, index: number) => Reply

/** A loopback HTTP server speaking whatever wire format its replies encode. */
export interface LoopbackServer {
  readonly url: string
  readonly requests: RecordedRequest[]
  /** Replaces the script; the request counter restarts at 0. */
  script(replies: readonly Reply[] | ReplyFn): void
  close(): Promise<void>
}

/** Starts a server on 127.0.0.1 on a free port. */
export async function startLoopback(replies: readonly Reply[] | ReplyFn = []): Promise<LoopbackServer> {
  let next: ReplyFn = toFn(replies)
  let index = 0
  const requests: RecordedRequest[] = []
  const sockets = new Set<import('node:net').Socket>()
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (b: Buffer) => parts.push(b))
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8')
      const record: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : safeJson(text),
        clientClosedEarly: false,
        framesWritten: 0,
      }
      requests.push(record)
      res.on('close', () => {
        if (!res.writableFinished) record.clientClosedEarly = true
      })
      void answer(next(record, index++), record, res)
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(r) {
      next = toFn(r)
      index = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

async function answer(reply: Reply, record: RecordedRequest, res: ServerResponse): Promise<void> {
  switch (reply.kind) {
    case 'json':
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
      res.end(JSON.stringify(reply.body))
      return
    case 'raw':
      res.writeHead(reply.status, { 'content-type': reply.contentType })
      res.end(reply.body)
      return
    case 'reset':
      res.socket?.destroy()
      return
    case 'hang':
      await sleep(reply.ms)
      if (!res.destroyed) await answer(reply.then, record, res)
      return
    case 'sse': {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...reply.headers })
      for (const frame of reply.frames) {
        if (res.destroyed || record.clientClosedEarly) return
        res.write(frame)
        record.framesWritten++
        if (reply.frameDelayMs !== undefined && reply.frameDelayMs > 0) await sleep(reply.frameDelayMs)
      }
      if (reply.reset === true) res.socket?.destroy()
      else if (reply.open !== true) res.end()
    }
  }
}

function toFn(replies: readonly Reply[] | ReplyFn): ReplyFn {
  if (typeof replies === 'function') return replies
  return (_r, i) => replies[Math.min(i, replies.length - 1)] ?? { kind: 'json', status: 500, body: { error: 'no scripted reply' } }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Splits a text into chunks of `size` characters, the way a model streams tokens. */
export function chunkText(text: string, size = 4): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}
