import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, createGate, isReliabilityFailFastError, retryTruncated, strictOutputRules, tool, truncatedFailFast } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { ask } from '../support/schemas.ts'

const Entries = Type.Object({ entries: Type.Array(Type.Object({ n: Type.String() })) })
const cut = '{"entries":[{"n":"A"},{"n":"B"},'
const complete = '{"entries":[{"n":"A"},{"n":"B"},{"n":"C"}]}'
const pyconveyor = 'Here is the extracted data: { "entries": [...'

async function failure(run: Promise<unknown>) {
  try {
    await run
  } catch (error) {
    if (isReliabilityFailFastError(error)) return error
    throw error
  }
  throw new Error('the run did not fail')
}

describe('Truncated answers', () => {
  it('never accepts a cut answer as a shorter complete value, even without any rule', async () => {
    const provider = scripted([{ content: cut, stopReason: 'max_tokens' }])
    const error = await failure(createGate({ providers: provider, outputSchema: Entries }).run(ask('list')))
    expect(error.kind).toBe('truncated')
    expect(provider.calls).toBe(1)
  })

  it('fails fast with kind truncated under truncatedFailFast', async () => {
    const provider = scripted([{ content: cut, stopReason: 'max_tokens' }, complete])
    const error = await failure(
      createGate({ providers: provider, outputSchema: Entries, postDecide: [truncatedFailFast, ...strictOutputRules(3)] }).run(ask('list')),
    )
    expect(error.kind).toBe('truncated')
    expect(error.attempts).toHaveLength(1)
    expect(error.attempts[0]).toMatchObject({ status: 'truncated', errorKind: 'truncated', validationStage: 'json-parse' })
  })

  it('retries a cut answer with a larger maxTokens under retryTruncated and returns the complete one', async () => {
    const provider = scripted([{ content: cut, stopReason: 'max_tokens' }, complete])
    const gate = createGate({ providers: provider, outputSchema: Entries, postDecide: [retryTruncated(), truncatedFailFast] })
    const result = await gate.run({ ...ask('list'), maxTokens: 100 })
    expect(result.value).toEqual({ entries: [{ n: 'A' }, { n: 'B' }, { n: 'C' }] })
    expect(provider.requests[1]?.maxTokens).toBe(200)
  })

  it('tells the model its answer was cut when a schema rule retries it', async () => {
    const provider = scripted([{ content: cut, stopReason: 'max_tokens' }, complete])
    await createGate({ providers: provider, outputSchema: Entries, postDecide: strictOutputRules(3) }).run(ask('list'))
    const feedback = provider.requests[1]?.messages.at(-1)?.content ?? ''
    expect(feedback).toMatch(/^Your previous response was cut off by the output token limit before it was complete/)
    expect(feedback).toContain('more concisely')
  })

  it('does not accept a complete-looking JSON answer the provider cut after it', async () => {
    const provider = scripted([{ content: `${complete}\n\nLet me explain each entry: the first`, stopReason: 'max_tokens' }])
    const error = await failure(createGate({ providers: provider, outputSchema: Entries }).run(ask('list')))
    expect(error.kind).toBe('truncated')
  })

  it("does not turn pyconveyor's cut example into an empty list", async () => {
    const provider = scripted([{ content: pyconveyor, stopReason: 'max_tokens' }])
    expect((await failure(createGate({ providers: provider, outputSchema: Entries }).run(ask('list')))).kind).toBe('truncated')
    const ended = scripted([pyconveyor])
    const error = await failure(createGate({ providers: ended, outputSchema: Entries }).run(ask('list')))
    expect(error.kind).toBe('schema-fail')
    expect(error.validationError?.stage).toBe('json-parse')
  })

  it('never accepts a tool-call turn cut by the token limit: its last call may hold cut arguments', async () => {
    const cutCall = { content: '', toolCalls: [{ id: 'c1', name: 'refund', args: { order: '4' } }], stopReason: 'max_tokens' as const }
    const error = await failure(createGate({ providers: scripted([cutCall]), outputSchema: Entries }).run(ask('refund #42')))
    expect(error.kind).toBe('truncated')
    expect(error.reason).toMatch(/^reliability-post-decide: the turn calling a tool was cut by the output token limit/)
    expect(error.attempts[0]).toMatchObject({ status: 'truncated', errorKind: 'truncated' })
    const provider = scripted([cutCall, { content: '', toolCalls: [{ id: 'c2', name: 'refund', args: { order: '42' } }] }])
    const result = await createGate({ providers: provider, postDecide: [retryTruncated(), truncatedFailFast] }).run({ ...ask('refund #42'), maxTokens: 50 })
    expect(result.response.toolCalls[0]?.args).toEqual({ order: '42' })
    expect(provider.requests[1]?.maxTokens).toBe(100)
  })

  it('runs no tool of an agent turn cut by the token limit', async () => {
    const refunded: unknown[] = []
    const refund = tool({
      name: 'refund',
      description: 'refund an order',
      input: Type.Object({ order: Type.String() }),
      execute: (args) => refunded.push(args),
    })
    const provider = scripted([{ content: '', toolCalls: [{ id: 'c1', name: 'refund', args: { order: '4' } }], stopReason: 'max_tokens' }, 'refunded'])
    const agent = Agent.create({ provider, model: 'm', name: 'billing' }).tools([refund]).build()
    const error = await failure(agent.run('refund order #42'))
    expect(error.kind).toBe('truncated')
    expect(refunded).toEqual([])
    expect(provider.calls).toBe(1)
  })

  it('never closes the brackets of an answer that stops before its end, whatever the stop reason', async () => {
    const provider = scripted(['{"entries":[{"n":"A"},{"n":"B"}', '{"entries":[{"n":"A"},{"n":"B"}]}'])
    const result = await createGate({ providers: provider, outputSchema: Entries, postDecide: strictOutputRules(2) }).run(ask('list'))
    expect(result.value).toEqual({ entries: [{ n: 'A' }, { n: 'B' }] })
    expect(result.attempts[0]?.repaired).not.toBe(true)
    expect(provider.requests[1]?.messages.at(-1)?.content).toMatch(/cut off/)
  })

  it('still closes a bracket left open before the model closed its tool-call block', async () => {
    const result = await createGate({ providers: scripted(['<tool_call>{"entries":[{"n":"A"},{"n":"B"}</tool_call>']), outputSchema: Entries }).run(ask('list'))
    expect(result.value).toEqual({ entries: [{ n: 'A' }, { n: 'B' }] })
    expect(result.attempts[0]?.repaired).toBe(true)
  })
})

describe('validateFinalAnswer with truncated', () => {
  const schema = compileSchema(Entries)

  it('fails a cut answer at json-parse, marked truncated, without trying the repair', () => {
    const verdict = validateFinalAnswer(cut, schema, { repair: true, truncated: true })
    expect(verdict).toMatchObject({
      ok: false,
      failure: { stage: 'json-parse', truncated: true, parseError: expect.stringMatching(/cut off by the output token limit.*not valid JSON/) },
    })
  })

  it('fails even an answer whose JSON parses and passes the schema', () => {
    expect(validateFinalAnswer(complete, schema, { truncated: true })).toMatchObject({ ok: false, failure: { truncated: true } })
  })

  it('leaves answers the model ended alone', () => {
    expect(validateFinalAnswer(complete, schema, { truncated: false })).toMatchObject({ ok: true })
    expect(validateFinalAnswer(cut, schema, { repair: true })).toMatchObject({
      ok: false,
      failure: { stage: 'json-parse', parseError: expect.stringMatching(/cut off/) },
    })
  })
})

describe('Answers past the length limit', () => {
  it('refuses one for its length without scanning it for a cut value (a 50 MB answer held the event loop for 0.3 s on each attempt)', () => {
    const schema = compileSchema(Entries)
    // Cut, and longer than maxLength: the length alone decides, so the message says nothing of a cut.
    const tooLong = `${cut}${'{"n":"x"},'.repeat(20)}`
    const verdict = validateFinalAnswer(tooLong, schema, { maxLength: 100 }) as { ok: false; failure: { parseError?: string } }
    expect(verdict.ok).toBe(false)
    expect(verdict.failure.parseError).toBe(`the response is too long (${tooLong.length} characters, limit 100)`)
    // Within the limit the same cut answer is still said to be cut.
    const within = validateFinalAnswer(tooLong, schema, { maxLength: 10_000 }) as { ok: false; failure: { parseError?: string } }
    expect(within.failure.parseError).toMatch(/cut off/)
  })
})
