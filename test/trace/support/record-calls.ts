import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGate, type GateConfig } from '../../../src/index.ts'
import { type ScriptedStep, scripted } from '../../../src/providers/index.ts'
import { readTrace, recordTrace, type TraceRecord } from '../../../src/trace/index.ts'
import type { ReplayConfig } from '../../../src/trace/index.ts'

/** What each provider answers in one call, by provider name. */
export type CallScript = Readonly<Record<string, readonly ScriptedStep[]>>

/** A gate configuration of the tests: a replay configuration whose `providers` are the scripted providers' names. */
export type TestConfig = ReplayConfig & { readonly providers: readonly string[] }

/** A temporary trace file's path. */
export function tracePath(): string {
  return join(mkdtempSync(join(tmpdir(), 'rg-replay-')), 'trace.jsonl')
}

/**
 * Runs one gate call per script under `config` (each call on fresh scripted providers answering its
 * script), recorded with `recordTrace` into a file, and reads the file back: the records a replay
 * gets, and how many answers each call took from each provider.
 */
export async function recordCalls(
  config: TestConfig,
  scripts: readonly CallScript[],
  path = tracePath(),
): Promise<{ readonly records: readonly TraceRecord[]; readonly used: readonly Readonly<Record<string, number>>[]; readonly path: string }> {
  const recorder = recordTrace([], { path })
  const used: Record<string, number>[] = []
  for (const [i, script] of scripts.entries()) {
    const { providers: names, ...rest } = config
    const providers = names.map((name) => scripted(script[name] ?? [], { name }))
    const gate = createGate<unknown>({
      ...(rest as Omit<GateConfig<unknown>, 'providers'>),
      providers: providers.map((provider) => ({ provider, name: provider.name })),
      model: 'm1',
    })
    recorder.add(gate)
    await gate.run({ messages: [{ role: 'user', content: `case ${i}` }] }, { runId: `call-${i}` }).catch(() => undefined)
    used.push(Object.fromEntries(providers.map((p) => [p.name, p.calls])))
  }
  await recorder.stop()
  return { records: readTrace(readFileSync(path, 'utf8')).records, used, path }
}
