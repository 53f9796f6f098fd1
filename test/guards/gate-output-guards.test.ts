import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { contentGuard, createGate, isReliabilityFailFastError, piiGuard, secretsGuard, strictOutputRules } from '../../src/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { otelHarness } from '../observability/otel-support.ts'

const CARD = '4111 1111 1111 1111'
const EMAIL = 'ana.canary@example.com'
const KEY = 'sk-proj-CANARYabcdefghijklmnopqrstuv'
const ask = { messages: [{ role: 'user' as const, content: 'answer' }] }

const failure = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isReliabilityFailFastError(error)) throw new Error(`expected a fail-fast error, got ${String(error)}`)
  return error
}

describe('gate output guards', () => {
  it('replace the accepted text with the redaction before it is returned', async () => {
    const gate = createGate({ providers: scripted([`Write to ${EMAIL}, key ${KEY}`]), contentGuards: [piiGuard(), secretsGuard()] })
    const result = await gate.run(ask)
    expect(result.value).toMatch(/^Write to \[REDACTED:email\], key \[REDACTED:[a-z-]+\]$/)
    expect(result.value).not.toContain(EMAIL)
    expect(result.value).not.toContain(KEY)
    expect(result.response.content).toBe(result.value)
    expect(JSON.stringify(result.attempts)).not.toContain(EMAIL)
  })

  it('validate the redacted answer against the output schema: a broken field is re-asked through the rules, never accepted', async () => {
    const Contact = Type.Object({ email: Type.String({ format: 'email' }), note: Type.String() })
    const provider = scripted([JSON.stringify({ email: EMAIL, note: 'hi' }), JSON.stringify({ email: 'support@corp.example', note: 'hi' })])
    const gate = createGate({
      providers: provider,
      outputSchema: Contact,
      postDecide: strictOutputRules(3),
      contentGuards: [
        piiGuard({ kinds: ['card'] }),
        contentGuard('noCanary', ({ text }) => (text.includes(EMAIL) ? { action: 'redact', text: text.replaceAll(EMAIL, '[gone]') } : { action: 'allow' }), {
          surfaces: ['output'],
        }),
      ],
    })
    const result = await gate.run(ask)
    expect(result.value).toEqual({ email: 'support@corp.example', note: 'hi' })
    expect(result.attempts[0]).toMatchObject({ errorKind: 'schema-fail', decision: 'retry' })
    expect(JSON.stringify(provider.requests[1])).not.toContain(EMAIL)
    expect(provider.requests[1]?.messages.at(-2)?.content).toContain('[gone]')
  })

  it('fail fast as schema-fail when no rule re-asks a redaction the schema refuses', async () => {
    const Pay = Type.Object({ card: Type.String({ pattern: '^[0-9 ]+$' }) })
    const gate = createGate({ providers: scripted([JSON.stringify({ card: CARD })]), outputSchema: Pay, contentGuards: [piiGuard()] })
    const error = await failure(gate.run(ask))
    expect(error.kind).toBe('schema-fail')
    expect(JSON.stringify(error.attempts)).not.toContain(CARD)
  })

  it('re-ask with the guard feedback as an ephemeral tail that never echoes the withheld answer', async () => {
    const provider = scripted(['Acme Corp is better', 'We are the best choice'])
    const base = [{ role: 'user' as const, content: 'which one?' }]
    const noRival = contentGuard(
      'noRival',
      ({ text }) => (/acme/i.test(text) ? { action: 'retry-with-feedback', feedback: 'Do not name competitors.' } : { action: 'allow' }),
      {
        surfaces: ['output'],
      },
    )
    const gate = createGate({ providers: provider, contentGuards: [noRival] })
    const result = await gate.run({ messages: base })
    expect(result.value).toBe('We are the best choice')
    expect(result.attempts[0]).toMatchObject({ decision: 'retry', ruleKind: 'guard-retry', feedbackSent: 'Do not name competitors.' })
    const second = provider.requests[1]?.messages ?? []
    expect(second.slice(0, 1)).toEqual(base)
    expect(second.at(-1)).toMatchObject({ role: 'user', content: 'Do not name competitors.' })
    expect(JSON.stringify(provider.requests[1])).not.toContain('Acme')
    expect(base).toHaveLength(1)
  })

  it('stop a guard that re-asks forever at the safety cap', async () => {
    const never = contentGuard('never', () => ({ action: 'retry-with-feedback', feedback: 'Try again.' }), { surfaces: ['output'] })
    const provider = scripted(['a', 'b', 'c'])
    const error = await failure(createGate({ providers: provider, maxAttempts: 3, contentGuards: [never] }).run(ask))
    expect(error.kind).toBe('max-attempts')
    expect(provider.requests).toHaveLength(3)
  })

  it('fail fast with guard-blocked or guard-escalated, explained, keeping nothing of the answer', async () => {
    const blocked = await failure(
      createGate({ providers: scripted([`key ${KEY}`]), contentGuards: [secretsGuard({ action: 'block', surfaces: ['output'] })] }).run(ask),
    )
    expect(blocked.kind).toBe('guard-blocked')
    expect(blocked.reason).toMatch(/content guard 'secrets' \(output\) blocked the answer: it holds a credential/)
    expect(JSON.stringify(blocked.attempts)).not.toContain(KEY)
    const human = contentGuard('human', () => ({ action: 'escalate', reason: 'a refund over the limit' }), { surfaces: ['output'] })
    const escalated = await failure(createGate({ providers: scripted(['refund 9000']), contentGuards: [human] }).run(ask))
    expect(escalated.kind).toBe('guard-escalated')
    expect(escalated.reason).toContain('a refund over the limit')
  })

  it('fail closed on a guard that throws, rejects or never settles, and open when made so', async () => {
    const throws = contentGuard(
      'throws',
      () => {
        throw new Error('classifier down')
      },
      { surfaces: ['output'] },
    )
    const rejects = contentGuard('rejects', () => Promise.reject(new Error('judge 500')), { surfaces: ['output'] })
    const hangs = contentGuard('hangs', () => new Promise<never>(() => undefined), { surfaces: ['output'], timeoutMs: 20 })
    for (const g of [throws, rejects, hangs]) {
      const error = await failure(createGate({ providers: scripted(['fine']), contentGuards: [g] }).run(ask))
      expect(error.kind).toBe('guard-blocked')
      expect(error.reason).toContain('fails closed')
    }
    const open = contentGuard('open', () => new Promise<never>(() => undefined), { surfaces: ['output'], timeoutMs: 20, onError: 'open' })
    expect((await createGate({ providers: scripted(['fine']), contentGuards: [open] }).run(ask)).value).toBe('fine')
  })

  it('bound a hanging guard by the run: an aborted run ends aborted', async () => {
    const hangs = contentGuard('hangs', () => new Promise<never>(() => undefined), { surfaces: ['output'] })
    const controller = new AbortController()
    const run = createGate({ providers: scripted(['fine']), contentGuards: [hangs] }).run(ask, { signal: controller.signal })
    setTimeout(() => controller.abort(new Error('user left')), 0)
    expect((await failure(run)).kind).toBe('aborted')
  })

  it("bound a hanging guard by the attempt's deadline: the attempt times out, and the rules decide", async () => {
    const hangs = contentGuard('hangs', () => new Promise<never>(() => undefined), { surfaces: ['output'] })
    const error = await failure(createGate({ providers: scripted(['fine']), timeoutMs: 25, contentGuards: [hangs] }).run(ask))
    expect(error.kind).toBe('timeout')
  })

  it('report each verdict as a frozen guard_verdict of host gate, without the text', async () => {
    const gate = createGate({ providers: scripted([`mail ${EMAIL}`]), contentGuards: [piiGuard()] })
    const seen: unknown[] = []
    gate.on('guard_verdict', (e) => seen.push(e))
    const result = await gate.run(ask, { runId: 'r1' })
    expect(seen).toEqual([{ runId: 'r1', host: 'gate', guard: 'pii', surface: 'output', action: 'redact', reason: 'email' }])
    expect(Object.isFrozen(seen[0])).toBe(true)
    expect(result.value).toBe('mail [REDACTED:email]')
  })

  it("screen the fallback's answer like a model's: redacted, re-validated, or blocked", async () => {
    const failing = () => scripted(['not json'])
    const Contact = Type.Object({ email: Type.String({ format: 'email' }) })
    const Note = Type.Object({ note: Type.String() })
    const fallbackRule = [{ when: () => true, then: 'fallback' as const, kind: 'use-fallback', failuresOnly: true }]
    const redacted = await createGate({
      providers: failing(),
      outputSchema: Note,
      postDecide: fallbackRule,
      fallback: () => JSON.stringify({ note: `mail ${EMAIL}` }),
      contentGuards: [piiGuard()],
    }).run(ask)
    expect(redacted.value).toEqual({ note: 'mail [REDACTED:email]' })
    expect(redacted.fromFallback).toBe(true)
    const broken = await failure(
      createGate({
        providers: failing(),
        outputSchema: Contact,
        postDecide: fallbackRule,
        fallback: () => JSON.stringify({ email: EMAIL }),
        contentGuards: [piiGuard()],
      }).run(ask),
    )
    expect(broken.kind).toBe('fallback-invalid')
    expect(broken.reason).toContain("once content guard 'pii' redacted it")
    const blocked = await failure(
      createGate({
        providers: failing(),
        outputSchema: Note,
        postDecide: fallbackRule,
        fallback: () => JSON.stringify({ note: `key ${KEY}` }),
        contentGuards: [secretsGuard({ action: 'block' })],
      }).run(ask),
    )
    expect(blocked.kind).toBe('guard-blocked')
    expect(JSON.stringify(blocked)).not.toContain(KEY)
  })

  it('leave the answer alone when the guards look at other surfaces', async () => {
    const inputOnly = contentGuard('inputOnly', () => ({ action: 'block', reason: 'never' }), { surfaces: ['input', 'tool-result'] })
    expect((await createGate({ providers: scripted([`mail ${EMAIL}`]), contentGuards: [inputOnly] }).run(ask)).value).toBe(`mail ${EMAIL}`)
  })

  it('refuse a list that holds no guard, and a misspelt option', () => {
    expect(() => createGate({ providers: scripted(['x']), contentGuards: [{ name: 'x' }] as never })).toThrow(/contentGuards must be a list of content guards/)
    expect(() => createGate({ providers: scripted(['x']), contentguards: [] } as never)).toThrow(/did you mean "contentGuards"/)
  })
})

describe('gate output guard verdicts in OpenTelemetry', () => {
  it('are gen_ai.evaluation.result records on the run span, without the text', async () => {
    const gate = createGate({ providers: scripted([`mail ${EMAIL}`]), contentGuards: [piiGuard()] })
    const h = otelHarness()
    const stop = instrument(gate, h.providers)
    await gate.run(ask)
    stop()
    const records = h.spans().flatMap((s) => s.events.filter((e) => e.name === 'gen_ai.evaluation.result'))
    expect(records).toHaveLength(1)
    expect(records[0]?.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'pii',
      'gen_ai.evaluation.score.label': 'redact',
      'reliability_gate.guard.surface': 'output',
    })
    expect(JSON.stringify(h.spans().map((s) => ({ attributes: s.attributes, events: s.events })))).not.toContain(EMAIL)
  })
})
