import { AIMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { generateText, Output, jsonSchema, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createAgent } from 'langchain'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, isReliabilityFailFastError, memorySessionStore, piiGuard, secretsGuard, strictOutputRules, tool } from '../../src/index.ts'
import { reliabilityMiddleware as aiSdkMiddleware } from '../../src/integrations/ai-sdk.ts'
import { reliabilityMiddleware as langChainMiddleware } from '../../src/integrations/langchain.ts'
import { scripted } from '../../src/providers/index.ts'

const CARD = '4111 1111 1111 1111'
const EMAIL = 'ana.canary@example.com'
const KEY = 'sk-proj-CANARYabcdefghijklmnopqrstuv'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] })

const failureOf = (error: unknown): { readonly kind?: string } | undefined =>
  isReliabilityFailFastError(error) ? error : ((error as { cause?: { kind?: string } } | undefined)?.cause ?? undefined)

describe('Agent output guards', () => {
  it('return and commit only the redacted final answer', async () => {
    const sessions = memorySessionStore()
    const agent = Agent.create({ provider: scripted([`Mail ${EMAIL}, card ${CARD}.`]), model: 'm', sessions, contentGuards: [piiGuard()] }).build()
    const session = await agent.session('s')
    expect(await session.run('hi')).toBe('Mail [REDACTED:email], card [REDACTED:card].')
    const stored = JSON.stringify(await sessions.load('s'))
    expect(stored).not.toContain(EMAIL)
    expect(stored).not.toContain('4111')
  })

  it('validate a typed answer after its redaction: a broken field is re-asked, the canary never sent back', async () => {
    const Contact = Type.Object({ email: Type.String({ format: 'email' }) })
    const provider = scripted([JSON.stringify({ email: EMAIL }), JSON.stringify({ email: 'help@corp.example' })])
    const privateMail = contentGuard(
      'privateMail',
      ({ text }) => (text.includes(EMAIL) ? { action: 'redact', text: text.replaceAll(EMAIL, 'hidden') } : { action: 'allow' }),
      {
        surfaces: ['output'],
      },
    )
    const agent = Agent.create({ provider, model: 'm', contentGuards: [privateMail] })
      .outputSchema(Contact)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    expect(await agent.runTyped('contact?')).toEqual({ email: 'help@corp.example' })
    expect(JSON.stringify(provider.requests)).not.toContain(EMAIL)
  })

  it('re-ask with ephemeral feedback that never enters the persisted history', async () => {
    const sessions = memorySessionStore()
    const provider = scripted(['Acme Corp does it better', 'We do it best'])
    const noRival = contentGuard(
      'noRival',
      ({ text }) => (/acme/i.test(text) ? { action: 'retry-with-feedback', feedback: 'Name no competitor.' } : { action: 'allow' }),
      {
        surfaces: ['output'],
      },
    )
    const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: [noRival] }).build()
    expect(await (await agent.session('s')).run('who?')).toBe('We do it best')
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Name no competitor.' })
    const stored = JSON.stringify(await sessions.load('s'))
    expect(stored).not.toContain('Name no competitor')
    expect(stored).not.toContain('Acme')
  })

  it('screen the text of a tool-call turn too, which is stored and sent back', async () => {
    const sessions = memorySessionStore()
    const provider = scripted([{ content: `Looking up ${EMAIL}`, toolCalls: [{ id: 'c1', name: 'find', args: { q: 'x' } }] }, 'Found it.'])
    const find = tool({ name: 'find', description: 'Finds', input: Type.Object({ q: Type.String() }), execute: () => 'ok' })
    const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: [piiGuard({ surfaces: ['output'] })] })
      .tools([find])
      .build()
    await (await agent.session('s')).run('find')
    expect(JSON.stringify(provider.requests[1])).not.toContain(EMAIL)
    expect(JSON.stringify(await sessions.load('s'))).not.toContain(EMAIL)
  })

  it('stop with guard-blocked when a guard blocks the answer: nothing is committed', async () => {
    const sessions = memorySessionStore()
    const agent = Agent.create({ provider: scripted([`key ${KEY}`]), model: 'm', sessions, contentGuards: [secretsGuard({ action: 'block' })] }).build()
    const session = await agent.session('s')
    const error = await session.run('key?').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('guard-blocked')
    expect(JSON.stringify(await sessions.load('s'))).not.toContain(KEY)
  })

  it("screen the output fallback's answer before it is returned or committed", async () => {
    const sessions = memorySessionStore()
    const Contact = Type.Object({ note: Type.String() })
    const agent = Agent.create({ provider: scripted(['not json']), model: 'm', sessions, contentGuards: [piiGuard()] })
      .outputSchema(Contact)
      .outputFallback({ fallback: () => JSON.stringify({ note: `write to ${EMAIL}` }) })
      .build()
    expect(await (await agent.session('s')).runTyped('note?')).toEqual({ note: 'write to [REDACTED:email]' })
    expect(JSON.stringify(await sessions.load('s'))).not.toContain(EMAIL)
    const blocking = Agent.create({ provider: scripted(['not json']), model: 'm', contentGuards: [secretsGuard({ action: 'block' })] })
      .outputSchema(Contact)
      .outputFallback({ canned: { note: `key ${KEY}` } })
      .build()
    const error = await blocking.runTyped('note?').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('guard-blocked')
  })

  it('refuse content guards given to reliability() instead of Agent.create', () => {
    expect(() => Agent.create({ provider: scripted([]), model: 'm' }).reliability({ contentGuards: [piiGuard()] } as never)).toThrow(
      /Agent.create\(\{ contentGuards \}\)/,
    )
  })
})

describe('AI SDK reliabilityMiddleware output guards', () => {
  it('hand generateText the redacted answer, never the model text', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [answer(`Reach ${EMAIL} with ${KEY}`)] })
    const model = wrapLanguageModel({
      model: mock,
      middleware: aiSdkMiddleware({ contentGuards: [piiGuard({ surfaces: ['output'] }), secretsGuard({ surfaces: ['output'] })] }),
    })
    const result = await generateText({ model, prompt: 'who?' })
    expect(result.text).toMatch(/^Reach \[REDACTED:email\] with \[REDACTED:[a-z-]+\]$/)
  })

  it('re-validate a redacted object against the call schema and re-ask', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [answer(JSON.stringify({ email: EMAIL })), answer(JSON.stringify({ email: 'help@corp.example' }))] })
    const privateMail = contentGuard('privateMail', ({ text }) =>
      text.includes(EMAIL) ? { action: 'redact', text: text.replaceAll(EMAIL, 'hidden') } : { action: 'allow' },
    )
    const middleware = aiSdkMiddleware({ contentGuards: [privateMail], postDecide: strictOutputRules(3) })
    const schema = jsonSchema<{ email: string }>({ type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] })
    const result = await generateText({ model: wrapLanguageModel({ model: mock, middleware }), output: Output.object({ schema }), prompt: 'contact?' })
    expect(result.output).toEqual({ email: 'help@corp.example' })
    expect(JSON.stringify(mock.doGenerateCalls.map((c) => c.prompt))).not.toContain(EMAIL)
  })

  it('throw guard-blocked when a guard blocks the answer', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [answer(`key ${KEY}`)] })
    const model = wrapLanguageModel({ model: mock, middleware: aiSdkMiddleware({ contentGuards: [secretsGuard({ action: 'block', surfaces: ['output'] })] }) })
    const error = await generateText({ model, prompt: 'key?' }).catch((e: unknown) => e)
    expect(failureOf(error)?.kind).toBe('guard-blocked')
  })
})

describe('LangChain reliabilityMiddleware output guards', () => {
  it('put only the redacted answer in the agent state', async () => {
    const model = fakeModel()
    model.respond(new AIMessage(`Reach ${EMAIL} or pay with ${CARD}`))
    const agent = createAgent({ model, tools: [], middleware: [langChainMiddleware({ contentGuards: [piiGuard({ surfaces: ['output'] })] })] })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'how?' }] })
    const state = JSON.stringify(result.messages.map((m) => m.content))
    expect(state).not.toContain(EMAIL)
    expect(state).not.toContain('4111')
    expect(result.messages.at(-1)?.content).toBe('Reach [REDACTED:email] or pay with [REDACTED:card]')
  })

  it('throw guard-escalated when a guard escalates the answer', async () => {
    const model = fakeModel()
    model.respond(new AIMessage('refund 9000'))
    const human = contentGuard('human', () => ({ action: 'escalate', reason: 'a refund over the limit' }), { surfaces: ['output'] })
    const agent = createAgent({ model, tools: [], middleware: [langChainMiddleware({ contentGuards: [human] })] })
    const error = await agent.invoke({ messages: [{ role: 'user', content: 'refund' }] }).catch((e: unknown) => e)
    expect(failureOf(error)?.kind).toBe('guard-escalated')
  })
})
