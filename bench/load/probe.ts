/**
 * Child process of the load-cost measurement: one fresh Node process per probe, so nothing is cached.
 *
 * - `time <url>`: milliseconds spent in `await import(url)`;
 * - `files <url>`: the file URLs loaded by that import (ESM and CommonJS alike, through a
 *   `module.registerHooks` load hook registered after this file itself has loaded);
 * - `first-run <url> <typebox|zod>`: the same, then the files a first `createGate` run with a
 *   TypeBox or a Zod output schema adds.
 *
 * Prints one JSON line. Timing probes register no hook, so the hook's own cost never shows.
 */
import { registerHooks } from 'node:module'

const [mode = '', url = '', schemaKind = 'typebox'] = process.argv.slice(2)

function recordLoads(): Set<string> {
  const loaded = new Set<string>()
  registerHooks({
    load(target, context, nextLoad) {
      if (target.startsWith('file:')) loaded.add(target)
      return nextLoad(target, context)
    },
  })
  return loaded
}

async function firstRun(loaded: Set<string>): Promise<unknown> {
  const main = (await import(url)) as typeof import('../../src/index.ts')
  const onImport = [...loaded]
  let outputSchema: unknown
  if (schemaKind === 'zod') {
    const { z } = await import('zod')
    outputSchema = z.object({ action: z.enum(['refund', 'reject']), amount: z.number() }).strict()
  } else {
    const { Type } = await import('typebox')
    outputSchema = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() }, { additionalProperties: false })
  }
  const provider = {
    name: 'stub',
    complete: async () => ({
      content: '{"action":"refund","amount":50}',
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: 'end' as const,
    }),
  }
  const gate = main.createGate({ providers: provider, outputSchema: outputSchema as never, postDecide: main.strictOutputRules(3) })
  gate.on('validation_failed', () => {})
  const { value } = await gate.run({ messages: [{ role: 'user', content: 'Refund order A-42 for $50.' }] })
  return { onImport, afterRun: [...loaded], value }
}

let report: unknown
if (mode === 'time') {
  const start = performance.now()
  await import(url)
  report = { ms: performance.now() - start }
} else if (mode === 'files') {
  const loaded = recordLoads()
  await import(url)
  report = { files: [...loaded] }
} else if (mode === 'first-run') {
  report = await firstRun(recordLoads())
} else {
  report = { error: `unknown mode ${mode}` }
}
process.stdout.write(`${JSON.stringify(report)}\n`)
