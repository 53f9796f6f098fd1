import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, streamText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent, tool } from 'langchain'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { isReliabilityFailFastError, type ReliabilityRule, retryTransient } from '../../src/index.ts'
import { reliabilityMiddleware as aiSdkMiddleware } from '../../src/integrations/ai-sdk-middleware/index.ts'
import { reliabilityMiddleware as langChainMiddleware } from '../../src/integrations/langchain.ts'
import { generated, streamed } from '../adapters/support/ai-sdk-mock.ts'
import { SRC, sourceFiles } from '../support/source-imports.ts'

const HOSTS = sourceFiles().filter((f) => /\/integrations\/(ai-sdk-middleware|langchain|host)\//.test(f))

/** A file's code without its comments. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
}

/** The spans `[start, end)` of every call of `name(...)` in `text`: from the name to its closing parenthesis. */
function callSpans(text: string, name: string): [number, number][] {
  const spans: [number, number][] = []
  for (const match of text.matchAll(new RegExp(`\\b${name}\\(`, 'g'))) {
    let depth = 0
    for (let i = match.index + name.length; i < text.length; i++) {
      if (text[i] === '(') depth++
      else if (text[i] === ')' && --depth === 0) {
        spans.push([match.index, i + 1])
        break
      }
    }
  }
  return spans
}

// How a host calls its model: LangChain's model handler (named `handler` in wrapModelCall), the AI SDK's doGenerate / doStream.
const MODEL_CALL = /\bhandler\(|\.doGenerate\(|\.doStream\(/g

describe('host model calls', () => {
  it("call the host's model only as the gate's provider: inside hostProvider(...) or the streaming provider's streamSdk(...)", () => {
    const outside: string[] = []
    const calling: string[] = []
    for (const file of HOSTS) {
      const text = code(file)
      const name = relative(SRC, file)
      // LangChain's wrapToolCall handler runs a tool, not the model: the model's handler is only handed to modelTurn.
      const scanned = name === 'integrations/langchain/reliability-middleware.ts' ? text.replace(/wrapToolCall[\s\S]*$/, '') : text
      const inside = [...callSpans(scanned, 'hostProvider'), ...callSpans(scanned, 'streamSdk')]
      for (const m of scanned.matchAll(MODEL_CALL)) {
        calling.push(name)
        if (!inside.some(([from, to]) => m.index > from && m.index < to)) outside.push(`${name}: ${scanned.slice(m.index, m.index + 40)}`)
      }
    }
    expect(outside).toEqual([])
    expect([...new Set(calling)].sort()).toEqual(['integrations/ai-sdk-middleware/reliability-middleware.ts', 'integrations/langchain/model-turn.ts'])
  })

  it("hand LangChain's model handler to the model turn only", () => {
    const text = code(`${SRC}/integrations/langchain/reliability-middleware.ts`)
    expect(text).toMatch(/wrapModelCall: \(request, handler\) => modelTurn\(request, handler, turn\)/)
    // Before wrapToolCall (whose handler runs a tool), `handler` is named only in that one line.
    expect(text.replace(/wrapToolCall[\s\S]*$/, '').match(/\bhandler\b/g)).toHaveLength(2)
  })

  it('build every host gate on the host provider, and the breaker once per middleware', () => {
    for (const file of ['integrations/langchain/model-turn.ts', 'integrations/ai-sdk-middleware/reliability-middleware.ts']) {
      const text = code(`${SRC}/${file}`)
      for (const [from, to] of callSpans(text, 'createGate')) expect(text.slice(from, to)).toMatch(/providers: (host\.provider|provider)\b/)
    }
    for (const file of ['integrations/langchain/reliability-middleware.ts', 'integrations/ai-sdk-middleware/reliability-middleware.ts'])
      expect(code(`${SRC}/${file}`)).toMatch(/hostGateConfig\(gateOptions, 'reliabilityMiddleware'\)/)
  })
})

const stop: ReliabilityRule = { when: () => true, then: 'fail-fast', kind: 'kill-switch' }
const unavailable = () => Object.assign(new Error('Service Unavailable'), { status: 503 })
const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] })

describe('host model calls (behaviour)', () => {
  it('spend no model call when a PreCheck rule fails fast: LangChain, AI SDK generate and stream', async () => {
    const model = fakeModel().respond(new AIMessage('never asked'))
    const error = await createAgent({ model, tools: [], middleware: [langChainMiddleware({ preCheck: [stop] })] })
      .invoke(ask('hi'))
      .catch((e: unknown) => (e as { cause?: unknown }).cause)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('kill-switch')
    expect(model.calls).toHaveLength(0)

    const mock = new MockLanguageModelV4({ doGenerate: [generated('never asked')], doStream: [streamed('never asked')] })
    const wrapped = wrapLanguageModel({ model: mock, middleware: aiSdkMiddleware({ preCheck: [stop] }) })
    await expect(generateText({ model: wrapped, prompt: 'hi', maxRetries: 0 })).rejects.toThrow()
    const parts: string[] = []
    const result = streamText({ model: wrapped, prompt: 'hi', maxRetries: 0, onError: () => undefined })
    for await (const part of result.fullStream) parts.push(part.type)
    expect(parts).toContain('error')
    expect(mock.doGenerateCalls).toHaveLength(0)
    expect(mock.doStreamCalls).toHaveLength(0)
  })

  it("retry a 503 on LangChain's first model call by the rules", async () => {
    const model = fakeModel().respond(unavailable()).respond(new AIMessage('fine'))
    const middleware = langChainMiddleware({ postDecide: [retryTransient({ backoff: () => 0 })] })
    const result = await createAgent({ model, tools: [], middleware: [middleware] }).invoke(ask('hi'))
    expect(model.calls).toHaveLength(2)
    expect(result.messages.at(-1)?.text).toBe('fine')
  })

  it('make every model turn of a LangChain agent a gate run: 3 model calls, 3 run_start', async () => {
    const echo = tool(async ({ text }: { text: string }) => `echo ${text}`, { name: 'echo', description: 'Echoes', schema: z.object({ text: z.string() }) })
    const model = fakeModel()
      .respondWithTools([{ name: 'echo', args: { text: 'a' }, id: 'c1' }])
      .respondWithTools([{ name: 'echo', args: { text: 'b' }, id: 'c2' }])
      .respond(new AIMessage('done'))
    const middleware = langChainMiddleware({})
    const starts: string[] = []
    middleware.on('run_start', (e) => starts.push(e.runId))
    await createAgent({ model, tools: [echo], middleware: [middleware] }).invoke(ask('echo twice'))
    expect(model.calls).toHaveLength(3)
    expect(starts).toHaveLength(3)
  })
})
