import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Agent, type GateEventMap, isReliabilityFailFastError, tool } from '../../src/index.ts'
import type { Message, ToolCall } from '../../src/model/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { historyTurns, lastVerdict, NO_PROGRESS_DEFAULTS } from '../../src/agent/no-progress/index.ts'
import { CORPORA } from '../support/corpora.ts'

/** One message of a tau-bench trajectory, as recorded. */
interface TauMessage {
  readonly role: string
  readonly content?: string | null
  readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[] | null
  readonly tool_call_id?: string
}
type ToolSchemas = Record<string, Record<string, { readonly function: { readonly name: string; readonly description: string; readonly parameters: object } }>>

/** A model turn of a run: what the scripted model answers. */
interface Step {
  readonly content: string
  readonly toolCalls: readonly ToolCall[]
}

/** One agent run of a trajectory: the turns after one user message, up to the next. */
interface Segment {
  readonly user: string
  readonly steps: readonly Step[]
}

/** The loops injected into a run. */
export type InjectedLoop = 'repeated-call' | 'ping-pong' | 'repeated-error' | 'repeated-text'

export interface NoProgressReplay {
  readonly trajectories: number
  readonly runs: number
  readonly calls: number
  /** Runs of the recorded trajectories stopped with `no-progress` (must be 0), and their other failures. */
  readonly stopped: number
  readonly failed: readonly string[]
  /** Ladder rungs the recorded runs climbed (a nudge is not a stop). */
  readonly rungs: Readonly<Record<'nudge' | 'forced-change' | 'stop', number>>
  readonly rungRuns: readonly string[]
  /** Per injected loop: runs, runs stopped, runs stopped exactly where the threshold says, tokens and USD spent since progress stopped. */
  readonly injected: Readonly<
    Record<
      InjectedLoop,
      {
        readonly runs: number
        readonly stopped: number
        readonly exact: number
        readonly expectedCount: number
        readonly tokensInLoop: number
        readonly usdInLoop: number
        readonly misses: readonly string[]
      }
    >
  >
}

// GPT-4o's list prices (USD per million tokens), for the cost of a loop.
const PRICING = { 'gpt-4o': { input: 2.5, output: 10 } }
const FINAL = 'That is everything I can do for now.'

/** The recorded trajectories as agent runs: one run per user message, each ending on a text answer. */
function segmentsOf(traj: readonly TauMessage[]): { segments: Segment[]; results: Map<string, string> } {
  const segments: Segment[] = []
  const results = new Map<string, string>()
  // The recordings reuse call ids across turns: each call gets its own, and a result answers the latest call of its id.
  const latest = new Map<string, string>()
  let current: { user: string; steps: Step[] } | undefined
  let n = 0
  for (const m of traj) {
    if (m.role === 'user') {
      current = { user: m.content ?? '', steps: [] }
      segments.push(current)
    } else if (m.role === 'assistant' && current !== undefined) {
      const toolCalls = (m.tool_calls ?? []).map((c) => {
        const id = `${c.id}#${n++}`
        latest.set(c.id, id)
        return { id, name: c.function.name, args: c.function.arguments }
      })
      current.steps.push({ content: m.content ?? '', toolCalls })
    } else if (m.role === 'tool' && m.tool_call_id !== undefined) {
      results.set(latest.get(m.tool_call_id) ?? m.tool_call_id, m.content ?? '')
    }
  }
  // A run that the recording cut after a tool result ends on a text answer, as the agent needs.
  for (const s of segments) if (s.steps.length === 0 || (s.steps.at(-1)?.toolCalls.length ?? 0) > 0) (s.steps as Step[]).push({ content: FINAL, toolCalls: [] })
  return { segments, results }
}

function tauAgent(schemas: ToolSchemas, results: Map<string, string>, steps: readonly ScriptedStep[]) {
  const provider = scripted(steps)
  const tools = Object.values(schemas['airline'] ?? {}).map((s) =>
    tool({
      name: s.function.name,
      description: s.function.description,
      input: s.function.parameters as Record<string, unknown>,
      execute: (_args: unknown, ctx: { callId: string }) => {
        const content = results.get(ctx.callId) ?? ''
        if (content.startsWith('Error')) throw new Error(content.replace(/^Error:\s*/, ''))
        return content
      },
    }),
  )
  const agent = Agent.create({ provider, model: 'gpt-4o', name: 'tau', maxIterations: 100 }).tools(tools).reliability({ pricing: PRICING }).build()
  const events: GateEventMap['no_progress'][] = []
  agent.on('no_progress', (e) => events.push(e))
  return { agent, provider, events }
}

const asScripted = (steps: readonly Step[]): ScriptedStep[] =>
  steps.map((s) => (s.toolCalls.length === 0 ? s.content : { content: s.content, toolCalls: [...s.toolCalls] }))

/** Where a loop is injected: the first turn of a run whose last call succeeded. */
function injectionPoint(segments: readonly Segment[], results: Map<string, string>): { segment: number; turn: number; call: ToolCall } | undefined {
  for (const [si, s] of segments.entries()) {
    for (const [ti, step] of s.steps.entries()) {
      const call = step.toolCalls.at(-1)
      if (call !== undefined && !(results.get(call.id) ?? '').startsWith('Error')) return { segment: si, turn: ti, call }
    }
  }
  return undefined
}

/** The turns injected after the chosen call, and how far the ladder should let them go. */
function loopSteps(loop: InjectedLoop, call: ToolCall, results: Map<string, string>): { steps: Step[]; expectedCount: number; injectedTurns: number } {
  const d = NO_PROGRESS_DEFAULTS
  const n = 40
  const steps: Step[] = []
  for (let i = 0; i < n; i++) {
    const id = `inj_${loop}_${i}`
    if (loop === 'repeated-call') {
      results.set(id, results.get(call.id) ?? '')
      steps.push({ content: '', toolCalls: [{ id, name: call.name, args: call.args }] })
    } else if (loop === 'ping-pong') {
      const think = i % 2 === 0
      results.set(id, think ? '' : (results.get(call.id) ?? ''))
      steps.push({
        content: '',
        toolCalls: [think ? { id, name: 'think', args: '{"thought":"Let me re-check that."}' } : { id, name: call.name, args: call.args }],
      })
    } else if (loop === 'repeated-error') {
      results.set(id, `Error: reservation ZZ${i}X not found`)
      steps.push({ content: '', toolCalls: [{ id, name: 'get_reservation_details', args: `{"reservation_id":"ZZ${i}X"}` }] })
    } else {
      results.set(id, '')
      steps.push({ content: 'Let me check that for you.', toolCalls: [{ id, name: 'think', args: `{"thought":"step ${i}"}` }] })
    }
  }
  // The chosen call counts as the first of a repeated call and of an alternation; an injected error or text starts its own.
  const expectedCount = {
    'repeated-call': d.repeats + 2,
    'ping-pong': d.pingPong + 2,
    'repeated-error': d.errorRepeats + 2,
    'repeated-text': d.textRepeats + 2,
  }[loop]
  const injectedTurns = loop === 'repeated-call' || loop === 'ping-pong' ? expectedCount - 1 : expectedCount
  return { steps, expectedCount, injectedTurns }
}

/**
 * Replays the 200 tau-bench GPT-4o airline trajectories through the Agent (a scripted model answering
 * the recorded turns, tools answering the recorded results) with the default no-progress thresholds,
 * then the same runs with a loop injected after their first successful call.
 */
export async function replayNoProgress(): Promise<NoProgressReplay> {
  const dir = path.join(CORPORA, 'tau-bench')
  const schemas = JSON.parse(readFileSync(path.join(dir, 'tool_schemas_from_get_info.json'), 'utf8')) as ToolSchemas
  const trajectories = JSON.parse(readFileSync(path.join(dir, 'gpt-4o-airline.json'), 'utf8')) as readonly { readonly traj: readonly TauMessage[] }[]
  let runs = 0
  let calls = 0
  let stopped = 0
  const failed: string[] = []
  const rungs = { nudge: 0, 'forced-change': 0, stop: 0 }
  const rungRuns: string[] = []
  const loops: InjectedLoop[] = ['repeated-call', 'ping-pong', 'repeated-error', 'repeated-text']
  const injected = Object.fromEntries(
    loops.map((l) => [l, { runs: 0, stopped: 0, exact: 0, expectedCount: 0, tokensInLoop: 0, usdInLoop: 0, misses: [] as string[] }]),
  ) as Record<InjectedLoop, { runs: number; stopped: number; exact: number; expectedCount: number; tokensInLoop: number; usdInLoop: number; misses: string[] }>

  for (const [ti, t] of trajectories.entries()) {
    const { segments, results } = segmentsOf(t.traj)
    // The recorded runs, one session per trajectory.
    const { agent, events } = tauAgent(
      schemas,
      results,
      segments.flatMap((s) => asScripted(s.steps)),
    )
    const session = agent.session()
    for (const [si, s] of segments.entries()) {
      runs++
      calls += s.steps.reduce((n, step) => n + step.toolCalls.length, 0)
      try {
        await session.run(s.user)
      } catch (error) {
        if (isReliabilityFailFastError(error) && error.kind === 'no-progress') stopped++
        else failed.push(`trajectory ${ti} run ${si}: ${String(error)}`)
      }
    }
    for (const e of events) rungs[e.step]++
    if (events.length > 0) rungRuns.push(`trajectory ${ti}: ${events.map((e) => `${e.step} ${e.pattern} ${e.tools.join('/')} x${e.count}`).join(', ')}`)

    // The same run with a loop injected after its first successful call.
    const point = injectionPoint(segments, results)
    if (point === undefined) continue
    const segment = segments[point.segment] as Segment
    for (const loop of loops) {
      const { steps, expectedCount, injectedTurns } = loopSteps(loop, point.call, results)
      const script = [...segment.steps.slice(0, point.turn + 1), ...steps, { content: FINAL, toolCalls: [] }]
      const run = tauAgent(schemas, results, asScripted(script))
      const tally = injected[loop]
      tally.runs++
      tally.expectedCount = expectedCount
      const error = await run.agent.run(segment.user).catch((e: unknown) => e)
      const stop = run.events.find((e) => e.step === 'stop')
      if (!isReliabilityFailFastError(error) || error.kind !== 'no-progress' || stop === undefined) {
        tally.misses.push(`trajectory ${ti}: ${String(error)}`)
        continue
      }
      tally.stopped++
      tally.tokensInLoop += stop.usage.inputTokens + stop.usage.outputTokens
      tally.usdInLoop += stop.costUsd
      const ladder = run.events.map((e) => e.step).join(',')
      const exact =
        stop.pattern === loop && stop.count === expectedCount && run.provider.calls === point.turn + 1 + injectedTurns && ladder === 'nudge,forced-change,stop'
      if (exact) tally.exact++
      else tally.misses.push(`trajectory ${ti}: ${ladder} ${stop.pattern} x${stop.count} after ${run.provider.calls} calls`)
    }
  }
  return { trajectories: trajectories.length, runs, calls, stopped, failed, rungs, rungRuns, injected }
}

/**
 * What a host middleware sees: before each recorded model call of each trajectory, the conversation so
 * far (as the AI SDK's prompt or LangChain's messages carry it), read by the same detector. Returns
 * the rungs each model call would have been on.
 */
export function replayHostHistories(): { readonly modelCalls: number; readonly rungs: Readonly<Record<'nudge' | 'forced-change' | 'stop', number>> } {
  const dir = path.join(CORPORA, 'tau-bench')
  const trajectories = JSON.parse(readFileSync(path.join(dir, 'gpt-4o-airline.json'), 'utf8')) as readonly { readonly traj: readonly TauMessage[] }[]
  const rungs = { nudge: 0, 'forced-change': 0, stop: 0 }
  let modelCalls = 0
  for (const t of trajectories) {
    const messages: Message[] = []
    for (const m of t.traj) {
      if (m.role === 'assistant') {
        modelCalls++
        const verdict = lastVerdict(NO_PROGRESS_DEFAULTS, historyTurns(messages))
        if (verdict !== undefined) rungs[verdict.step]++
        const toolCalls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: c.function.arguments }))
        messages.push({ role: 'assistant', content: m.content ?? '', ...(toolCalls.length > 0 ? { toolCalls } : {}) })
      } else if (m.role === 'tool') {
        const content = m.content ?? ''
        messages.push({ role: 'tool', content, toolCallId: m.tool_call_id ?? '', ...(content.startsWith('Error') ? { isError: true } : {}) })
      } else if (m.role === 'user') {
        messages.push({ role: 'user', content: m.content ?? '' })
      }
    }
  }
  return { modelCalls, rungs }
}
