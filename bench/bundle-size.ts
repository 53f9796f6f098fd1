/**
 * Bundle size: a minimal program bundled and minified as ESM with esbuild (the way a user shipping
 * a serverless function or an edge worker would), raw and gzip bytes. Each program is also run once
 * to prove the bundle works and ends with the expected value.
 *
 * Run alone with `node bench/bundle-size.ts`; `npm run bench` calls it.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { DIST_INDEX, ensureBuilt, ROOT } from './support/build.ts'

const ANSWER = '{"action":"refund","amount":50}'

/** The programs bundled: the same job (one validated `{action, amount}` answer from a stub model). */
export const PROGRAMS: readonly { readonly name: string; readonly source: string }[] = [
  {
    name: 'reliability-gate: createGate + TypeBox schema + strictOutputRules(3)',
    source: `
import { createGate, strictOutputRules } from ${JSON.stringify(DIST_INDEX)}
import { Type } from 'typebox'
const Refund = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() }, { additionalProperties: false })
const provider = { name: 'stub', complete: async () => ({ content: ${JSON.stringify(ANSWER)}, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }) }
const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
const { value } = await gate.run({ messages: [{ role: 'user', content: 'Refund order A-42 for $50.' }] })
console.log(JSON.stringify(value))
`,
  },
  {
    name: 'reliability-gate: createGate + Zod schema + strictOutputRules(3)',
    source: `
import { createGate, strictOutputRules } from ${JSON.stringify(DIST_INDEX)}
import { z } from 'zod'
const Refund = z.object({ action: z.enum(['refund', 'reject']), amount: z.number() }).strict()
const provider = { name: 'stub', complete: async () => ({ content: ${JSON.stringify(ANSWER)}, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }) }
const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3) })
const { value } = await gate.run({ messages: [{ role: 'user', content: 'Refund order A-42 for $50.' }] })
console.log(JSON.stringify(value))
`,
  },
  {
    name: 'Vercel AI SDK: generateText + Output.object + Zod schema',
    source: `
import { generateText, Output } from 'ai'
import { z } from 'zod'
const Refund = z.object({ action: z.enum(['refund', 'reject']), amount: z.number() }).strict()
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const model = {
  specificationVersion: 'v4', provider: 'stub', modelId: 'stub', supportedUrls: {},
  doGenerate: async () => ({ content: [{ type: 'text', text: ${JSON.stringify(ANSWER)} }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
  doStream: async () => { throw new Error('not used') },
}
const { output } = await generateText({ model, output: Output.object({ schema: Refund }), prompt: 'Refund order A-42 for $50.', maxRetries: 0 })
console.log(JSON.stringify(output))
`,
  },
]

export interface BundleSize {
  readonly name: string
  readonly bytes: number
  readonly gzipBytes: number
  /** What the bundled program printed (the accepted value), or its error. */
  readonly ran: string
}

export async function bundleSizes(): Promise<BundleSize[]> {
  ensureBuilt()
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-bundle-'))
  try {
    const sizes: BundleSize[] = []
    for (const [i, program] of PROGRAMS.entries()) {
      const result = await build({
        stdin: { contents: program.source, resolveDir: ROOT, loader: 'js', sourcefile: `program-${i}.js` },
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'node',
        target: 'node22',
        legalComments: 'none',
        // CommonJS dependencies bundled into ESM need a real `require` for Node built-ins (esbuild's
        // documented workaround); every program gets the same line.
        banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
        write: false,
        logLevel: 'silent',
      })
      const code = result.outputFiles[0]?.contents ?? new Uint8Array()
      const file = path.join(dir, `program-${i}.mjs`)
      writeFileSync(file, code)
      const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 })
      const ran = run.status === 0 ? run.stdout.trim() : `failed: ${run.stderr.trim().split('\n').at(-1) ?? ''}`
      sizes.push({ name: program.name, bytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength, ran })
    }
    return sizes
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.filename === process.argv[1]) {
  for (const size of await bundleSizes()) console.log(`${size.name}: ${size.bytes} B, gzip ${size.gzipBytes} B; ran: ${size.ran}`)
}
