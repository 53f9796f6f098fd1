import { mkdtempSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { serveTrace } from '../../src/trace/index.ts'

/** GET `url` with the given Host header; the status and body. */
function get(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

function trace(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'rg-serve-')), 'trace.jsonl')
  writeFileSync(path, `${JSON.stringify({ ts: 1, type: 'run_start', runId: 'r-personal-data', provider: 'p' })}\n`)
  return path
}

describe('serveTrace', () => {
  it('serves the page to the loopback address it listens on, by IP or as localhost', async () => {
    const server = await serveTrace(trace())
    try {
      const { host } = new URL(server.url)
      for (const name of [host, `localhost:${new URL(server.url).port}`]) {
        const page = await get(server.url, name)
        expect(page.status).toBe(200)
        expect(page.body).toContain('r-personal-data')
      }
    } finally {
      await server.close()
    }
  })

  it('refuses a request naming another host, so a page that rebinds its name to 127.0.0.1 reads no trace', async () => {
    const server = await serveTrace(trace())
    try {
      const { port } = new URL(server.url)
      for (const name of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
        const page = await get(server.url, name)
        expect(page.status).toBe(403)
        expect(page.body).not.toContain('r-personal-data')
      }
    } finally {
      await server.close()
    }
  })
})
