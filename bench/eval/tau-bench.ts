import { readFileSync } from 'node:fs'
import path from 'node:path'
import { compileSchema, type CompiledSchema } from '../../src/validation/building-blocks.ts'
import type { JsonSchemaObject } from '../../src/validation/index.ts'
import { CORPORA } from '../support/corpora.ts'

interface TauMessage {
  readonly role: string
  readonly tool_calls?: readonly { readonly function: { readonly name: string; readonly arguments: string } }[] | null
}

type ToolSchemas = Record<string, Record<string, { readonly function: { readonly name: string; readonly parameters: JsonSchemaObject } }>>

export interface TauBenchResult {
  readonly calls: number
  readonly accepted: number
  readonly rejected: readonly { readonly tool: string; readonly reason: string }[]
  readonly unknownTools: readonly string[]
}

/**
 * tau-bench: every tool call gpt-4o made in 200 real airline trajectories, checked against the
 * tool's JSON Schema (compiled once per tool, as the gate's tool-argument check does). These calls
 * were executed by the benchmark's environment, so every rejection would be a false one.
 */
export function runTauBench(): TauBenchResult {
  const dir = path.join(CORPORA, 'tau-bench')
  const trajectories = JSON.parse(readFileSync(path.join(dir, 'gpt-4o-airline.json'), 'utf8')) as { readonly traj: readonly TauMessage[] }[]
  const schemas = JSON.parse(readFileSync(path.join(dir, 'tool_schemas_from_get_info.json'), 'utf8')) as ToolSchemas
  const compiled = new Map<string, CompiledSchema>()
  for (const tool of Object.values(schemas.airline ?? {})) compiled.set(tool.function.name, compileSchema(tool.function.parameters))
  let calls = 0
  let accepted = 0
  const rejected: { tool: string; reason: string }[] = []
  const unknownTools = new Set<string>()
  for (const { traj } of trajectories) {
    for (const message of traj) {
      for (const call of message.tool_calls ?? []) {
        calls++
        const schema = compiled.get(call.function.name)
        if (schema === undefined) {
          unknownTools.add(call.function.name)
          continue
        }
        let args: unknown
        try {
          args = JSON.parse(call.function.arguments)
        } catch (error) {
          rejected.push({ tool: call.function.name, reason: `arguments are not JSON: ${(error as Error).message}` })
          continue
        }
        const verdict = schema.validate(args)
        if (verdict instanceof Promise) throw new Error('the raw-JSON-Schema path answered with a promise')
        if (verdict.ok) accepted++
        else rejected.push({ tool: call.function.name, reason: verdict.issues.map((i) => `${i.path}: ${i.message}`).join('; ') })
      }
    }
  }
  return { calls, accepted, rejected, unknownTools: [...unknownTools] }
}
