import { execFile } from 'node:child_process'
import { describe, expect, it } from 'vitest'

// Records every module URL a fresh Node process resolves, printed as JSON on exit.
const RECORDER = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module'
const urls = new Set()
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); urls.add(r.url); return r } })
process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify([...urls]) + '\\n'))
`)}`
// Node 24 strips types by default; Node 22 needs the flag to run the sources.
const NODE_FLAGS = process.features.typescript === false ? ['--experimental-strip-types'] : []
const SRC = new URL('../../src/', import.meta.url).href

/** Runs `code` (an ES module body; `SRC` is the URL of src/) in a fresh process; returns the module URLs it loaded. */
function loadedBy(code: string): Promise<readonly string[]> {
  const body = `const SRC = ${JSON.stringify(SRC)};\n${code}`
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...NODE_FLAGS, '--no-warnings', '--import', RECORDER, '--input-type=module', '-e', body],
      { timeout: 20_000 },
      (error, _stdout, stderr) => {
        const line = stderr.split('\n').find((l) => l.startsWith('LOADED '))
        if (error !== null || line === undefined) reject(new Error(`the child process failed: ${error?.message ?? ''}\n${stderr}`))
        else resolve(JSON.parse(line.slice('LOADED '.length)) as string[])
      },
    )
  })
}

const fromPackage = (urls: readonly string[], path: string) => urls.filter((u) => u.includes(`/node_modules/${path}`))

describe('Load cost', () => {
  it('imports the main entry without the TypeBox compiler, rxjs or the tokenizer', async () => {
    const urls = await loadedBy(`await import(SRC + 'index.ts')`)
    expect(urls.some((u) => u.endsWith('/src/index.ts'))).toBe(true)
    expect(fromPackage(urls, 'typebox/build/compile/')).toEqual([])
    expect(fromPackage(urls, 'rxjs/')).toEqual([])
    expect(fromPackage(urls, 'gpt-tokenizer/')).toEqual([])
  })

  it('builds events$ and gate streams without loading rxjs', async () => {
    const urls = await loadedBy(`
      const { EventHub } = await import(SRC + 'events/index.ts')
      const { createGateStream } = await import(SRC + 'gate/stream/gate-stream.ts')
      const { ReplayBuffer } = await import(SRC + 'events/replay-buffer.ts')
      const hub = new EventHub()
      hub.events$
      hub.on('retry', () => {})
      hub.emit('retry', { attempt: 1 })
      const events = new ReplayBuffer()
      const stream = createGateStream(events, Promise.resolve())
      events.next({ type: 'text', text: 'x', attempt: 1 })
      events.complete()
      for await (const event of stream) void event
      stream.observable`)
    expect(fromPackage(urls, 'rxjs/')).toEqual([])
  })

  it('loads rxjs on the first subscription to events$', async () => {
    const urls = await loadedBy(`
      const { EventHub } = await import(SRC + 'events/index.ts')
      new EventHub().events$.subscribe(() => {}).unsubscribe()`)
    expect(fromPackage(urls, 'rxjs/').length).toBeGreaterThan(0)
  })

  it('loads the TypeBox compiler only when a TypeBox schema is compiled', async () => {
    const script = (schema: string) => `
      const { compileSchema } = await import(SRC + 'validation/index.ts')
      const { z } = await import('zod')
      const { Type } = await import('typebox')
      void z, Type
      await compileSchema(${schema}).validate({ amount: 1 })`
    const [zod, typebox] = await Promise.all([loadedBy(script('z.object({ amount: z.number() })')), loadedBy(script('Type.Object({ amount: Type.Number() })'))])
    expect(fromPackage(zod, 'typebox/build/compile/')).toEqual([])
    expect(fromPackage(typebox, 'typebox/build/compile/').length).toBeGreaterThan(0)
  })
})
