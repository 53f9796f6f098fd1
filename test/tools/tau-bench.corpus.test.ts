import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { idShapeGuard, tool } from '../../src/index.ts'
import type { GuardContext } from '../../src/agent/index.ts'
import { validateToolArgs, type ToolArgsResult } from '../../src/validation/building-blocks.ts'
import { corpora, corpusPath, describeWith } from '../support/requirements.ts'

interface FunctionSchema {
  readonly type: 'function'
  readonly function: { readonly name: string; readonly description: string; readonly parameters: Record<string, unknown> }
}
interface RecordedCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}
interface Trajectory {
  readonly task_id: number
  readonly traj: readonly { readonly role: string; readonly tool_calls?: readonly RecordedCall[] | null }[]
}

function settle<T>(verdict: ToolArgsResult<T> | Promise<ToolArgsResult<T>>): ToolArgsResult<T> {
  if (verdict instanceof Promise) throw new Error('JSON Schema validation is synchronous')
  return verdict
}

describeWith(corpora)('tau-bench GPT-4o airline tool calls', () => {
  const schemas = JSON.parse(readFileSync(corpusPath('tau-bench', 'tool_schemas_from_get_info.json'), 'utf8')) as Record<string, Record<string, FunctionSchema>>
  const trajectories = JSON.parse(readFileSync(corpusPath('tau-bench', 'gpt-4o-airline.json'), 'utf8')) as readonly Trajectory[]
  // Arguments exactly as GPT-4o sent them: JSON strings, the way the OpenAI API delivers them.
  const calls = trajectories.flatMap((t) => t.traj.flatMap((m) => m.tool_calls ?? []))
  const tools = new Map(
    Object.values(schemas.airline ?? {}).map((s) => [
      s.function.name,
      tool({ name: s.function.name, description: s.function.description, input: s.function.parameters, execute: () => null }),
    ]),
  )

  it('holds the 1,164 recorded calls of 200 trajectories, all to known airline tools', () => {
    expect(trajectories).toHaveLength(200)
    expect(calls).toHaveLength(1164)
    expect(tools.size).toBe(14)
    expect(calls.filter((c) => !tools.has(c.function.name)).map((c) => c.function.name)).toEqual([])
  })

  it('validates every recorded call against its tool schema with zero false rejections', () => {
    const rejected = calls.flatMap((c) => {
      const t = tools.get(c.function.name)
      if (t === undefined) return [`${c.id}: unknown tool ${c.function.name}`]
      const verdict = settle(validateToolArgs(c.function.arguments, t.input))
      return verdict.ok ? [] : [`${c.id} ${c.function.name}: ${verdict.failure.message}`]
    })
    expect(rejected).toEqual([])
  })

  it('passes every recorded call through the default ID-shape guard', async () => {
    const guard = idShapeGuard()
    const blocked: string[] = []
    for (const c of calls) {
      const ctx: GuardContext = { tool: c.function.name, callId: c.id, retry: 0, agent: 'tau' }
      const verdict = await guard(JSON.parse(c.function.arguments) as unknown, ctx)
      if (!verdict.ok) blocked.push(`${c.id}: ${verdict.reason}`)
    }
    expect(blocked).toEqual([])
  })

  it('rejects the same calls once a required argument is removed', () => {
    let checked = 0
    for (const c of calls) {
      const t = tools.get(c.function.name)
      const required = (t?.spec.inputSchema.required ?? []) as readonly string[]
      const field = required[0]
      if (t === undefined || field === undefined) continue
      const args = JSON.parse(c.function.arguments) as Record<string, unknown>
      delete args[field]
      const verdict = settle(validateToolArgs(args, t.input))
      expect(verdict.ok, `${c.id} without ${field}`).toBe(false)
      if (!verdict.ok) expect(verdict.failure.issues.some((i) => i.code === 'missing_required' && i.path === field)).toBe(true)
      checked++
    }
    expect(checked).toBe(1162) // every call but the two to list_all_airports, which takes no argument
  })
})
