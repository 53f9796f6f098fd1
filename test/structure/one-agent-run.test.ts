import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SRC, sourceFiles } from '../support/source-imports.ts'

/** A file's code without its comments. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
}

const files = sourceFiles()
const matching = (pattern: RegExp): string[] =>
  files
    .filter((f) => pattern.test(code(f)))
    .map((f) => relative(SRC, f))
    .sort()

describe('one agent run', () => {
  it('has no second loop for agent.stream: the one-turn copy is gone and every run is an AgentRun made by the session', () => {
    expect(existsSync(join(SRC, 'agent/stream-run.ts'))).toBe(false)
    expect(matching(/\bstreamRun\b/)).toEqual([])
    // agent-run.ts itself makes one, with nothing in it, for its hidden class.
    expect(matching(/\bnew AgentRun\(/)).toEqual(['agent/agent-run.ts', 'agent/session.ts'])
  })

  it("streams an agent's run by switching its gate calls to gate.stream, in one place", () => {
    // The run's model calls: one call site, `rt.callGate` (the gate's run on the parts the run built, or the streamed run).
    expect(matching(/\.callGate\(/).filter((f) => f.startsWith('agent/'))).toEqual(['agent/agent-run.ts'])
    expect(matching(/\bcallGate:/).filter((f) => f.startsWith('agent/'))).toEqual(['agent/agent-runtime.ts', 'agent/streamed-turns.ts'])
    expect(matching(/\.gate\.run\(/).filter((f) => f.startsWith('agent/'))).toEqual([])
    expect(matching(/\bgate\.stream\(/).filter((f) => f.startsWith('agent/'))).toEqual(['agent/streamed-turns.ts'])
  })

  it('starts runs and streams of a session through the same #begin', () => {
    const session = code(join(SRC, 'agent/session.ts'))
    const stream = session.slice(session.indexOf('  stream(input'))
    // run/runTyped/runDetailed (#start), stream, and resume (a run paused for an approval goes on through it too).
    expect(session.match(/this\.#begin\(/g)).toHaveLength(3)
    expect(stream).toMatch(/this\.#begin\(user, runOptions, whole<T>, turns\)/)
  })
})

describe('one tool-argument verdict mapping', () => {
  it('maps unsettled verdicts to give-ups only in toolGiveUp, called by the agent and the one host helper', () => {
    expect(matching(/\btoolGiveUp\(/)).toEqual(['agent/tool-call-run.ts', 'agent/tool-give-up.ts', 'integrations/host/host-tool-call.ts'])
    // The typed stops' verdicts are read only where they are made, typed and mapped.
    expect(matching(/'abandoned'|'stuck'/)).toEqual(['agent/tool-args-retry.ts', 'agent/tool-args-verdict.ts', 'agent/tool-give-up.ts'])
    expect(matching(/\bToolCallAbandoned\b|'tool-call-abandoned'/)).toEqual(['agent/tool-give-up.ts', 'model/fail-fast-kind.ts'])
  })

  it('settles host tool calls with the agent argument loop in one helper, guards included', () => {
    expect(matching(/\bnew ToolArgsRetry\(/)).toEqual([
      'agent/tool-args-retry.ts',
      'agent/tool-call-run.ts',
      'integrations/host/host-tool-call.ts',
      // The check where LangChain runs the tool: no retry, no give-up.
      'integrations/langchain/tool-call-check.ts',
    ])
    for (const host of ['integrations/ai-sdk-middleware/tool-args-call.ts', 'integrations/langchain/tool-args-turn.ts'])
      expect(code(join(SRC, host))).toMatch(/\bsettleHostToolCall\(/)
    const helper = code(join(SRC, 'integrations/host/host-tool-call.ts'))
    expect(helper).toMatch(/guards: settings\.toolGuards/)
    expect(code(join(SRC, 'integrations/langchain/tool-call-check.ts'))).toMatch(/guards: settings\.toolGuards/)
  })
})
