import { readFileSync } from 'node:fs'
import path from 'node:path'
import { compileSchema, type CompiledSchema, validateFinalAnswer, validateToolArgs } from '../../src/validation/building-blocks.ts'
import type { JsonSchemaObject } from '../../src/validation/index.ts'
import { NOT_PARSED, parseJsonFast } from '../../src/validation/json/parse-json-fast.ts'
import { CORPORA } from '../support/corpora.ts'

interface TauMessage {
  readonly role: string
  readonly tool_calls?: readonly { readonly function: { readonly name: string; readonly arguments: string } }[] | null
}

type ToolSchemas = Record<string, Record<string, { readonly function: { readonly name: string; readonly parameters: JsonSchemaObject } }>>

/** One way a tool call's arguments reach validation, and how many of the calls it accepts. */
export interface TauBenchPath {
  readonly path: string
  readonly accepted: number
  readonly rejected: readonly { readonly tool: string; readonly reason: string }[]
}

export interface TauBenchResult {
  readonly calls: number
  /** Accepted on the raw-JSON-Schema path (`schema.validate(JSON.parse(args))`). */
  readonly accepted: number
  readonly rejected: readonly { readonly tool: string; readonly reason: string }[]
  readonly unknownTools: readonly string[]
  /** Every path the same arguments can take into validation: each must accept every call. */
  readonly paths: readonly TauBenchPath[]
}

type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: string }

const settled = (verdict: unknown): Verdict => {
  if (verdict instanceof Promise) throw new Error('the raw-JSON-Schema path answered with a promise')
  const v = verdict as { ok: boolean; failure?: { message: string }; issues?: readonly { path: string; message: string }[] }
  if (v.ok) return { ok: true }
  return { ok: false, reason: v.failure?.message ?? v.issues?.map((i) => `${i.path}: ${i.message}`).join('; ') ?? 'rejected' }
}

/** The six ways the arguments of one call reach validation. */
const PATHS: readonly { readonly path: string; readonly check: (args: string, schema: CompiledSchema) => Verdict }[] = [
  { path: 'schema.validate(JSON.parse(args))', check: (args, schema) => settled(schema.validate(JSON.parse(args))) },
  { path: 'validateToolArgs(args text)', check: (args, schema) => settled(validateToolArgs(args, schema)) },
  { path: 'validateToolArgs(args parsed by an SDK)', check: (args, schema) => settled(validateToolArgs(JSON.parse(args), schema)) },
  {
    path: "the gate's fast path (parseJsonFast, then validate)",
    check: (args, schema) => {
      const parsed = parseJsonFast(args)
      return parsed === NOT_PARSED ? settled(validateFinalAnswer(args, schema)) : settled(schema.validate(parsed))
    },
  },
  { path: 'validateFinalAnswer(args)', check: (args, schema) => settled(validateFinalAnswer(args, schema)) },
  {
    path: 'validateFinalAnswer(prose + ```json fence, repair on)',
    check: (args, schema) => settled(validateFinalAnswer(`Here are the arguments:\n\`\`\`json\n${args}\n\`\`\`\nDone.`, schema, { repair: true })),
  },
]

/**
 * tau-bench: every tool call gpt-4o made in 200 real airline trajectories, checked against the
 * tool's JSON Schema (compiled once per tool, as the gate's tool-argument check does), on each of the
 * six paths the arguments can take into validation. These calls were executed by the benchmark's
 * environment, so every rejection would be a false one.
 */
export function runTauBench(): TauBenchResult {
  const dir = path.join(CORPORA, 'tau-bench')
  const trajectories = JSON.parse(readFileSync(path.join(dir, 'gpt-4o-airline.json'), 'utf8')) as { readonly traj: readonly TauMessage[] }[]
  const schemas = JSON.parse(readFileSync(path.join(dir, 'tool_schemas_from_get_info.json'), 'utf8')) as ToolSchemas
  const compiled = new Map<string, CompiledSchema>()
  for (const tool of Object.values(schemas.airline ?? {})) compiled.set(tool.function.name, compileSchema(tool.function.parameters))
  let calls = 0
  const unknownTools = new Set<string>()
  const perPath = PATHS.map((p) => ({ path: p.path, accepted: 0, rejected: [] as { tool: string; reason: string }[] }))
  for (const { traj } of trajectories) {
    for (const message of traj) {
      for (const call of message.tool_calls ?? []) {
        calls++
        const schema = compiled.get(call.function.name)
        if (schema === undefined) {
          unknownTools.add(call.function.name)
          continue
        }
        PATHS.forEach((p, i) => {
          const tally = perPath[i] as (typeof perPath)[number]
          let verdict: Verdict
          try {
            verdict = p.check(call.function.arguments, schema)
          } catch (error) {
            verdict = { ok: false, reason: `arguments are not JSON: ${(error as Error).message}` }
          }
          if (verdict.ok) tally.accepted++
          else tally.rejected.push({ tool: call.function.name, reason: verdict.reason })
        })
      }
    }
  }
  const raw = perPath[0] as (typeof perPath)[number]
  return { calls, accepted: raw.accepted, rejected: raw.rejected, unknownTools: [...unknownTools], paths: perPath }
}
