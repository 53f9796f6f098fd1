import { readFileSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { strictOutputRules } from '../../src/index.ts'
import { type ReplayConfig, type ReplayReport, replayTrace, type TraceRecord } from '../../src/trace/index.ts'
import { CORPORA } from '../support/corpora.ts'
import { bfclToJsonSchema } from './bfcl-schema.ts'

/** The categories whose answer is one call: the schema is a `{ name, arguments }` call of one of the question's functions. */
const SINGLE_CALL = new Set(['simple', 'multiple_function', 'executable_simple', 'executable_multiple_function'])

interface Answer {
  readonly model: string
  readonly id: string
  readonly raw: string
  readonly functions: readonly { readonly name: string; readonly parameters: unknown }[]
}

/** Per model: first answers accepted under each schema version, and how many moved. */
export interface ModelAcceptance {
  readonly answers: number
  readonly acceptedV1: number
  readonly acceptedV2: number
  /** Accepted by v1, rejected by v2 (a replay then needs a model answer: the retry was never recorded). */
  readonly lost: number
  /** Rejected by v1, accepted by v2. */
  readonly gained: number
}

/** What replaying BFCL's first answers under two schema versions gave. */
export interface BfclReplayResult {
  readonly answers: number
  readonly models: number
  readonly acceptedV1: number
  readonly acceptedV2: number
  /** Calls of the v2 replay that stopped for a model answer (a rejected first answer asks for a retry). */
  readonly needsModelAnswerV2: number
  readonly byModel: Readonly<Record<string, ModelAcceptance>>
}

/**
 * A call schema of the question's functions: `{ name, arguments }`, the arguments checked as BFCL
 * declares them (v1); `strict` is the schema as a provider's strict mode wants it (v2: OpenAI's
 * structured outputs): every object closed and every declared property required.
 */
function callSchema(functions: Answer['functions'], strict: boolean): Record<string, unknown> {
  const call = (f: Answer['functions'][number]) => ({
    type: 'object',
    required: ['name', 'arguments'],
    properties: { name: { const: f.name }, arguments: bfclToJsonSchema(f.parameters, false) },
  })
  return { anyOf: functions.map((f) => (strict ? strictMode(call(f)) : call(f))) }
}

/** A schema in strict mode: each object with properties closed, all of them required (recursively). */
function strictMode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictMode)
  if (typeof node !== 'object' || node === null) return node
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'const' || k === 'enum' ? v : strictMode(v)]))
  const properties = out['properties']
  if (typeof properties === 'object' && properties !== null) {
    out['required'] = Object.keys(properties)
    out['additionalProperties'] = false
  }
  return out
}

/** The first answers as a trace: one gate call each, its one attempt answered with the model's raw text and accepted. */
function asTrace(answers: readonly Answer[]): TraceRecord[] {
  const records: TraceRecord[] = []
  answers.forEach((a, i) => {
    const runId = `bfcl-${i}`
    const usage = { inputTokens: 1, outputTokens: 1 }
    const at = (type: string, fields: Record<string, unknown>) => records.push({ ts: i, type, runId, ...fields } as TraceRecord)
    at('run_start', { provider: 'bfcl', model: a.model })
    at('attempt_start', { attempt: 1, provider: 'bfcl', providerIdx: 0, model: a.model, request: { model: a.model, messages: 1, tail: [] } })
    at('attempt_end', { attempt: 1, provider: 'bfcl', model: a.model, errorKind: 'ok', usage, response: { content: a.raw, toolCalls: [], stopReason: 'end' } })
    at('decision', { attempt: 1, phase: 'post-decide', decision: 'ok', kind: 'ok', matched: false })
    at('run_end', { outcome: 'ok', kind: 'ok', attempts: 1, provider: 'bfcl', usage, costUsd: 0, durationMs: 0, fromFallback: false })
  })
  return records
}

/**
 * BFCL's real first answers (the text outputs with JSON in them, single-call categories) replayed
 * with `replayTrace` under two versions of the answer schema: v1 checks the declared arguments'
 * types and required ones, v2 is the same schema in a provider's strict mode (every object closed,
 * every declared argument required, optional ones included). Per model: how
 * many first answers each version accepts, and how many move. A rejected answer asks for a retry
 * the archive never recorded: the replay reports it as needing a model answer.
 */
export async function measureBfclReplay(): Promise<BfclReplayResult> {
  const answers = gunzipSync(readFileSync(path.join(CORPORA, 'bfcl/derived/text_outputs_with_json.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Answer & { readonly category: string })
    .filter((a) => SINGLE_CALL.has(a.category) && Array.isArray(a.functions) && a.functions.length > 0)
  const trace = asTrace(answers)
  const replay = async (strict: boolean): Promise<ReplayReport> => {
    // One configuration per function set, so calls of the same question share one compiled gate.
    const configs = new Map<string, ReplayConfig>()
    return replayTrace(trace, {
      config: (call) => {
        const answer = answers[Number(call.runId.slice('bfcl-'.length))] as Answer
        const key = JSON.stringify(answer.functions)
        let config = configs.get(key)
        if (config === undefined) {
          config = { outputSchema: callSchema(answer.functions, strict), postDecide: strictOutputRules(2), repair: false }
          configs.set(key, config)
        }
        return config
      },
    })
  }
  const [v1, v2] = [await replay(false), await replay(true)]
  const byModel: Record<string, { answers: number; acceptedV1: number; acceptedV2: number; lost: number; gained: number }> = {}
  v1.calls.forEach((one, i) => {
    const two = v2.calls[i]
    const model = (answers[Number(one.runId.slice('bfcl-'.length))] as Answer).model
    const m = (byModel[model] ??= { answers: 0, acceptedV1: 0, acceptedV2: 0, lost: 0, gained: 0 })
    const ok1 = one.status === 'same'
    const ok2 = two?.status === 'same'
    m.answers++
    if (ok1) m.acceptedV1++
    if (ok2) m.acceptedV2++
    if (ok1 && !ok2) m.lost++
    if (!ok1 && ok2) m.gained++
  })
  const sum = (k: 'acceptedV1' | 'acceptedV2') => Object.values(byModel).reduce((n, m) => n + m[k], 0)
  return {
    answers: answers.length,
    models: Object.keys(byModel).length,
    acceptedV1: sum('acceptedV1'),
    acceptedV2: sum('acceptedV2'),
    needsModelAnswerV2: v2.needsModelAnswer,
    byModel,
  }
}
