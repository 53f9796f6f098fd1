import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import {
  Agent,
  contentGuard,
  createGate,
  isReliabilityFailFastError,
  memorySessionStore,
  piiGuard,
  ProviderError,
  retryTransient,
  secretsGuard,
} from '../../src/index.ts'
import type { GateStream } from '../../src/gate/stream/index.ts'
import { scripted } from '../../src/providers/index.ts'

const CARD = '4111 1111 1111 1111'
const EMAIL = 'ana.canary@example.com'
const KEY = 'sk-proj-CANARYabcdefghijklmnopqrstuv'
const ask = { messages: [{ role: 'user' as const, content: 'answer' }] }

/** Every event a stream yields, and its error when it fails. */
async function drain<T>(stream: AsyncIterable<T>): Promise<{ events: T[]; error: unknown }> {
  const events: T[] = []
  try {
    for await (const e of stream) events.push(e)
  } catch (error) {
    return { events, error }
  }
  return { events, error: undefined }
}

const textOf = (events: readonly { type: string; text?: string }[]) =>
  events
    .filter((e) => e.type === 'text')
    .map((e) => e.text)
    .join('')

describe('gate.stream behind the stream guards', () => {
  for (const mode of ['passthrough', 'buffer'] as const) {
    it(`delivers in ${mode} mode only released text, whose whole is the result's answer`, async () => {
      // The scripted provider streams three characters a chunk: every canary is split across chunks.
      const gate = createGate({ providers: scripted([`Card ${CARD}, mail ${EMAIL}, key ${KEY}. Bye.`]), contentGuards: [piiGuard(), secretsGuard()] })
      const stream: GateStream<string> = gate.stream(ask, { mode })
      const { events, error } = await drain(stream)
      expect(error).toBeUndefined()
      const chunks = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text)
      for (const chunk of chunks) for (const canary of [CARD, EMAIL, KEY]) expect(chunk).not.toContain(canary)
      const delivered = chunks.join('')
      expect(delivered).not.toContain('4111')
      expect(delivered).not.toContain('sk-proj')
      expect(delivered).toMatch(/^Card \[REDACTED:card\], mail \[REDACTED:email\], key \[REDACTED:[a-z-]+\]\. Bye\.$/)
      const result = await stream.result
      expect(result.response.content).toBe(delivered)
      expect(result.value).toBe(delivered)
    })
  }

  it('checks the released text against the schema while it streams (progressive), and no partial holds a canary', async () => {
    const Note = Type.Object({ to: Type.String(), body: Type.String() })
    const gate = createGate({ providers: scripted([JSON.stringify({ to: EMAIL, body: `pay with ${CARD}` })]), outputSchema: Note, contentGuards: [piiGuard()] })
    const stream = gate.stream(ask, { mode: 'progressive' })
    const { events } = await drain(stream)
    expect(JSON.stringify(events)).not.toContain(EMAIL)
    expect(JSON.stringify(events)).not.toContain('4111')
    expect((await stream.result).value).toEqual({ to: '[REDACTED:email]', body: 'pay with [REDACTED:card]' })
  })

  it('stops the stream at a block: nothing after it is delivered, and the run fails guard-blocked', async () => {
    const gate = createGate({
      providers: scripted([`The key is ${KEY} and more text after it`]),
      contentGuards: [secretsGuard({ action: 'block', surfaces: ['stream', 'output'] })],
    })
    const stream = gate.stream(ask, { mode: 'passthrough' })
    const { events, error } = await drain(stream)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('guard-blocked')
    expect(isReliabilityFailFastError(error) && error.reason).toMatch(/content guard 'secrets' \(stream\) blocked the streamed answer/)
    expect(textOf(events)).not.toContain('sk-')
    expect(textOf(events)).not.toContain('more text')
    await expect(stream.result).rejects.toMatchObject({ kind: 'guard-blocked' })
  })

  it('fails a passthrough stream whose output guard redacts text already delivered, so the result never disagrees with it', async () => {
    const outputOnly = piiGuard({ surfaces: ['output'] })
    const passthrough = createGate({ providers: scripted([`mail ${EMAIL}`]), contentGuards: [outputOnly] }).stream(ask, { mode: 'passthrough' })
    const { error } = await drain(passthrough)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('mid-stream-not-retryable')
    // Buffered, nothing was delivered yet: the redacted answer is delivered whole.
    const buffered = createGate({ providers: scripted([`mail ${EMAIL}`]), contentGuards: [outputOnly] }).stream(ask, { mode: 'buffer' })
    const drained = await drain(buffered)
    expect(textOf(drained.events)).toBe('mail [REDACTED:email]')
    expect((await buffered.result).value).toBe('mail [REDACTED:email]')
  })

  it('holds back nothing without stream guards: chunks pass as they came', async () => {
    const stream = createGate({ providers: scripted(['abcdefghij']), contentGuards: [piiGuard({ surfaces: ['input'] })] }).stream(ask, { mode: 'passthrough' })
    const { events } = await drain(stream)
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text)).toEqual(['abcd', 'efgh', 'ij'])
  })

  it('reports the stream verdicts as guard_verdict events of host gate on the stream surface', async () => {
    const gate = createGate({ providers: scripted([`mail ${EMAIL}`]), contentGuards: [piiGuard({ surfaces: ['stream'] })] })
    const seen: { surface: string; action: string; host: string }[] = []
    gate.on('guard_verdict', (e) => seen.push(e))
    await gate.stream(ask, { mode: 'buffer' }).result
    expect(seen.some((e) => e.surface === 'stream' && e.action === 'redact' && e.host === 'gate')).toBe(true)
    expect(seen.every((e) => Object.isFrozen(e))).toBe(true)
  })

  it('fails closed when a stream guard never answers, bounded by its timeout', async () => {
    const hangs = contentGuard('hangs', () => new Promise<never>(() => undefined), { surfaces: ['stream'], lookback: 4, timeoutMs: 20 })
    const stream = createGate({ providers: scripted(['hello there']), contentGuards: [hangs] }).stream(ask, { mode: 'passthrough' })
    const { events, error } = await drain(stream)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('guard-blocked')
    expect(textOf(events)).toBe('')
  })

  it('never delivers the held text of an attempt whose stream broke off, not even once the retry streams', async () => {
    // The guard answers only once the retry has started: the failed attempt's screenings are still under way when it fails.
    let retryStarted: () => void = () => {}
    const retrying = new Promise<void>((resolve) => (retryStarted = resolve))
    const late = contentGuard('late', () => retrying.then(() => ({ action: 'allow' as const })), { surfaces: ['stream'], lookback: 2 })
    const provider = scripted(['The second answer.', 'The second answer.'])
    let calls = 0
    const streaming = {
      ...provider,
      name: 'breaks-off',
      stream(request: Parameters<NonNullable<typeof provider.stream>>[0]) {
        calls++
        if (calls === 2) {
          retryStarted()
          return provider.stream(request)
        }
        return (async function* () {
          yield { type: 'text' as const, text: 'FIRST attempt, about to fail. ' }
          throw new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })
        })()
      },
    }
    for (const mode of ['passthrough', 'buffer'] as const) {
      calls = 0
      const gate = createGate({ providers: streaming, contentGuards: [late], postDecide: [retryTransient({ backoff: () => 0 })] })
      const { events, error } = await drain(gate.stream(ask, { mode }))
      expect(error).toBeUndefined()
      expect(events.filter((e) => e.type === 'text').map((e) => e.attempt)).not.toContain(1)
      expect(textOf(events)).toBe('The second answer.')
    }
  })
})

describe('agent.stream behind the stream and output guards', () => {
  for (const mode of ['passthrough', 'buffer'] as const) {
    it(`delivers and commits in ${mode} mode only the redacted answer`, async () => {
      const sessions = memorySessionStore()
      const provider = scripted([`Your card ${CARD} is on file, ${EMAIL}.`])
      const agent = Agent.create({ provider, model: 'm', sessions, contentGuards: [piiGuard()] }).build()
      const session = await agent.session('s')
      const stream = session.stream('hi', { mode })
      const { events, error } = await drain(stream)
      expect(error).toBeUndefined()
      const delivered = textOf(events as { type: string; text?: string }[])
      expect(delivered).toBe('Your card [REDACTED:card] is on file, [REDACTED:email].')
      const result = await stream.result
      expect(result.text).toBe(delivered)
      const stored = JSON.stringify(await sessions.load('s'))
      expect(stored).not.toContain(EMAIL)
      expect(stored).not.toContain('4111')
    })
  }
})
