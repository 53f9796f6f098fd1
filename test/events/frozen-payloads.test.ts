import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, createGate, type GateEvent, strictOutputRules, tool } from '../../src/index.ts'
import { EventHub, type EventSource } from '../../src/events/index.ts'
import { GATE_EVENT_NAMES } from '../../src/events/event-names.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

/** Anything that changes between two identical runs: ids and clocks. */
const VOLATILE = new Set(['runId', 'latencyMs', 'elapsedMs', 'durationMs', 'error'])

/** A plain, comparable picture of a value (volatile fields dropped). */
function picture(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > 20) return value
  if (value instanceof Error) return { error: value.name }
  if (Array.isArray(value)) return value.map((v) => picture(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) if (!VOLATILE.has(key)) out[key] = picture((value as Record<string, unknown>)[key], depth + 1)
  return out
}

/**
 * A listener that tries to change every field it can reach (assign, delete, define, push, splice);
 * it counts what succeeded and throws the first refusal, as a careless listener would.
 */
function vandal(changed: string[]) {
  return (payload: unknown): void => {
    let refusal: unknown
    const seen = new Set<object>()
    const attack = (value: unknown, path: string, depth: number): void => {
      if (typeof value !== 'object' || value === null || seen.has(value) || depth > 12 || value instanceof Error || value instanceof AbortSignal) return
      seen.add(value)
      const fields = value as Record<string, unknown>
      for (const key of Object.keys(value)) {
        attack(fields[key], `${path}.${key}`, depth + 1)
        const before = fields[key]
        const tries: [string, () => void][] = [
          ['assign', () => void (fields[key] = typeof before === 'string' ? 'VANDAL' : 666)],
          ['delete', () => void delete fields[key]],
          ['define', () => void Object.defineProperty(fields, key, { value: 'VANDAL' })],
        ]
        for (const [how, act] of tries) {
          try {
            act()
            if (fields[key] !== before || !(key in fields)) changed.push(`${how} ${path}.${key}`)
          } catch (error) {
            refusal ??= error
          }
        }
      }
      try {
        const proto: unknown = Object.getPrototypeOf(value)
        Object.setPrototypeOf(value, { vandal: true })
        if (Object.getPrototypeOf(value) !== proto) changed.push(`reprototype ${path}`)
      } catch (error) {
        refusal ??= error
      }
      try {
        if (Array.isArray(value)) value.push('VANDAL')
        else fields.vandal = 'VANDAL'
        changed.push(`add to ${path}`)
      } catch (error) {
        refusal ??= error
      }
    }
    attack(payload, '', 0)
    if (refusal !== undefined) throw refusal
  }
}

type Watchable = Pick<EventSource, 'events$'> & { on: (name: never, listener: (payload: unknown) => void) => () => void }

/** Subscribes a vandal to every event name, and a recorder of what a well-behaved listener sees. */
function watch(target: Watchable, withVandals: boolean) {
  const changed: string[] = []
  const seen: GateEvent[] = []
  const listenerErrors: unknown[] = []
  target.events$.subscribe((event) => {
    if (event.type === 'listener_error') listenerErrors.push(event.error)
    else seen.push(structuredClone(picture(event)) as GateEvent)
  })
  if (withVandals) for (const name of GATE_EVENT_NAMES) target.on(name as never, vandal(changed))
  return { changed, seen, listenerErrors }
}

function refundGate() {
  return createGate({
    providers: scripted([
      { content: '{"orderId": 42}', usage: { inputTokens: 10, outputTokens: 5 } },
      { content: validRefundJson, usage: { inputTokens: 12, outputTokens: 6 } },
    ]),
    model: 'm',
    pricing: { m: { input: 1, output: 2 } },
    outputSchema: Refund,
    postDecide: strictOutputRules(3),
  })
}

const Event = Type.Object({ title: Type.String(), tags: Type.Array(Type.String()) }, { additionalProperties: false })

function eventAgent() {
  const booked = { created: { title: 'Standup', tags: ['team'] } }
  const provider = scripted([
    { content: '', toolCalls: [{ id: 'c1', name: 'book', args: { title: 7, tags: ['team'] } }] },
    { content: '', toolCalls: [{ id: 'c1', name: 'book', args: { title: 'Standup', tags: ['team'] } }] },
    'Booked it.',
  ])
  const agent = Agent.create({ provider, name: 'cal' })
    .tool(tool({ name: 'book', description: 'Book an event', input: Event, execute: async () => booked }))
    .build()
  return { agent, booked }
}

describe('EventHub payloads', () => {
  it('cannot change what a gate run returns, nor what later events say, through any event', async () => {
    const calm = refundGate()
    const calmWatch = watch(calm as unknown as Watchable, false)
    const expected = await calm.run(ask('refund 42'), { metadata: { tenant: 'acme', tags: ['a'] } })

    const gate = refundGate()
    const watched = watch(gate as unknown as Watchable, true)
    const metadata = { tenant: 'acme', tags: ['a'] }
    const result = await gate.run(ask('refund 42'), { metadata })

    expect(watched.changed).toEqual([])
    expect(picture(result)).toEqual(picture(expected))
    expect(result.response.content).toBe(validRefundJson)
    expect(result.usage).toEqual(expected.usage)
    expect(watched.seen).toEqual(calmWatch.seen)
    // The caller's own metadata is theirs: copied for the events, never frozen or edited.
    expect(metadata).toEqual({ tenant: 'acme', tags: ['a'] })
    expect(Object.isFrozen(metadata)).toBe(false)
    // Every refused edit is a listener_error of a TypeError (strict mode), never a failed run.
    expect(watched.listenerErrors.length).toBeGreaterThan(5)
    expect(watched.listenerErrors.every((error) => error instanceof TypeError)).toBe(true)
  })

  it("cannot change an agent run's answer, its tool calls or their results through any event", async () => {
    const calm = eventAgent()
    const calmWatch = watch(calm.agent as unknown as Watchable, false)
    const expected = await calm.agent.runDetailed('book the standup')

    const { agent, booked } = eventAgent()
    const watched = watch(agent as unknown as Watchable, true)
    const result = await agent.runDetailed('book the standup')

    expect(watched.changed).toEqual([])
    expect(picture(result)).toEqual(picture(expected))
    expect(result.functionsCalled[0]).toMatchObject({ status: 'ok', args: { title: 'Standup', tags: ['team'] }, result: booked })
    expect(watched.seen).toEqual(calmWatch.seen)
    // The tool's own result object is not frozen under its feet.
    expect(Object.isFrozen(booked)).toBe(false)
    expect(booked).toEqual({ created: { title: 'Standup', tags: ['team'] } })
    expect(watched.listenerErrors.length).toBeGreaterThan(5)
    expect(watched.listenerErrors.every((error) => error instanceof TypeError)).toBe(true)
  })

  it('cannot change what a streamed run returns through any event', async () => {
    const calm = refundGate()
    const expected = await calm.stream(ask('refund 42'), { mode: 'buffer' }).result
    const gate = refundGate()
    const watched = watch(gate as unknown as Watchable, true)
    const result = await gate.stream(ask('refund 42'), { mode: 'buffer' }).result
    expect(watched.changed).toEqual([])
    expect(picture(result)).toEqual(picture(expected))
    expect(watched.listenerErrors.length).toBeGreaterThan(0)
  })

  it('cannot change what a gate run returns when its metadata holds a getter that throws, and copies it with the field marked', async () => {
    const gate = refundGate()
    const errors: unknown[] = []
    const seen: unknown[] = []
    gate.on('listener_error', (e) => errors.push(e.error))
    gate.on('attempt_end', (e) => {
      seen.push(e.metadata)
      ;(e.response as { content: string }).content = 'rewritten'
    })
    gate.on('run_end', (e) => {
      ;(e.usage as { inputTokens: number }).inputTokens = 999
    })
    const metadata = {
      tenant: 'acme',
      get secret(): never {
        throw new Error('getter')
      },
    }
    const result = await gate.run(ask('refund 42'), { metadata })
    expect(result.response.content).toBe(validRefundJson)
    expect(result.usage.inputTokens).not.toBe(999)
    // Two attempts and the run's end: each edit refused.
    expect(errors).toHaveLength(3)
    expect(errors.every((error) => error instanceof TypeError)).toBe(true)
    expect(seen).toEqual([
      { tenant: 'acme', secret: '[unreadable: getter]' },
      { tenant: 'acme', secret: '[unreadable: getter]' },
    ])
    expect(seen[1]).toBe(seen[0])
    expect(Object.isFrozen(seen[0])).toBe(true)
  })

  it('reports each run its own metadata, to listeners and links, when the caller reuses one object and edits it between runs', async () => {
    const seen: (string | undefined)[][] = []
    const record = (where: string) => (metadata: Readonly<Record<string, unknown>> | undefined) => seen.push([where, metadata?.['tenant'] as string])
    const gate = createGate({
      providers: scripted([validRefundJson, validRefundJson]),
      outputSchema: Refund,
      middleware: [(ctx, next) => (record('link')(ctx.metadata), next())],
    })
    gate.on('attempt_start', (e) => record('attempt_start')(e.metadata))
    const agent = Agent.create({ provider: scripted(['a', 'b']), model: 'm' })
      .use((ctx, next) => (record('agent link')(ctx.metadata), next()))
      .build()
    agent.on('agent_run_start', (e) => record('agent_run_start')(e.metadata))
    const metadata: Record<string, unknown> = {}
    for (const tenant of ['acme', 'globex']) {
      metadata['tenant'] = tenant
      await gate.run(ask('refund #42'), { metadata })
      await agent.run('hi', { metadata })
    }
    const where = ['attempt_start', 'link', 'agent_run_start', 'agent link']
    expect(seen).toEqual([...where.map((w) => [w, 'acme']), ...where.map((w) => [w, 'globex'])])
  })

  it('cannot change what a gate run returns when the provider answers with a Proxy that throws when read', async () => {
    const refuses = {
      getPrototypeOf: (): never => {
        throw new Error('trap')
      },
    }
    const gate = createGate({
      providers: {
        name: 'p',
        complete: async () => ({
          content: validRefundJson,
          toolCalls: [],
          usage: new Proxy({ inputTokens: 3, outputTokens: 4 }, refuses),
          stopReason: 'end' as const,
        }),
      },
      outputSchema: Refund,
    })
    const errors: unknown[] = []
    gate.on('listener_error', (e) => errors.push(e.error))
    gate.on('attempt_end', (e) => {
      ;(e.response as { content: string }).content = 'rewritten'
    })
    gate.on('run_end', (e) => {
      ;(e.usage as { inputTokens: number }).inputTokens = 999
    })
    const result = await gate.run(ask('refund 42'))
    expect(result.response.content).toBe(validRefundJson)
    expect(result.usage.inputTokens).toBe(3)
    expect(errors).toHaveLength(2)
    expect(errors.every((error) => error instanceof TypeError)).toBe(true)
  })

  it("never freezes the caller's own tools or schemas in place, with every event listened to and a middleware", async () => {
    const gate = createGate({
      providers: scripted(['no', validRefundJson]),
      outputSchema: Refund,
      postDecide: strictOutputRules(2),
      middleware: [(ctx, next) => next(ctx.request)],
    })
    const seen: GateEvent[] = []
    for (const type of GATE_EVENT_NAMES) gate.on(type, (payload) => seen.push({ type, ...payload } as GateEvent))
    const tools = [{ name: 'lookup', description: 'Look up', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }]
    const responseSchema = { type: 'object', properties: { action: { type: 'string' } } }
    await gate.run({ ...ask('refund'), tools, responseSchema })
    expect(seen.length).toBeGreaterThan(4)
    expect([tools, tools[0], tools[0]?.inputSchema, responseSchema, responseSchema.properties].map((v) => Object.isFrozen(v))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ])
    // The caller may go on editing its own specs for its next run.
    tools.push({ name: 'refund', description: 'Refund', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } })
    expect(tools).toHaveLength(2)
  })

  it("hands the result's own response and usage to attempt_end, frozen", async () => {
    const gate = refundGate()
    const ends: unknown[] = []
    gate.on('attempt_end', (e) => {
      ends.push(e)
      ;(e.response as { content: string }).content = 'rewritten'
    })
    const errors: unknown[] = []
    gate.on('listener_error', (e) => errors.push(e.error))
    const result = await gate.run(ask('refund 42'))
    expect(result.response.content).toBe(validRefundJson)
    expect(result.value).toEqual(JSON.parse(validRefundJson))
    expect(errors).toHaveLength(2)
    expect(errors.every((error) => error instanceof TypeError)).toBe(true)
    expect(ends.every((e) => Object.isFrozen(e) && Object.isFrozen((e as { usage: object }).usage))).toBe(true)
  })

  it('freezes the payload of a direct emit, its nested arrays included, and leaves errors alone', () => {
    const hub = new EventHub()
    const got: { tail: unknown[]; error: unknown }[] = []
    hub.on('retry', (e) => got.push(e as never))
    const tail = [{ role: 'user' as const, content: 'fix it' }]
    hub.emit('retry', { runId: 'r', attempt: 1, nextAttempt: 2, decision: 'retry', fromProvider: 'p', toProvider: 'p', delayMs: 0, feedback: 'x', tail })
    expect(Object.isFrozen(got[0])).toBe(true)
    expect(Object.isFrozen(tail) && Object.isFrozen(tail[0])).toBe(true)
    const error = new Error('boom')
    hub.on('listener_error', () => {})
    hub.emit('listener_error', { runId: 'r', event: 'retry', error })
    expect(Object.isFrozen(error)).toBe(false)
  })

  it('still reports a payload whose fields cannot be read', () => {
    const hub = new EventHub()
    const got: unknown[] = []
    hub.on('template_error', (e) => got.push(e))
    const hostile = {
      get boom(): never {
        throw new Error('getter')
      },
    }
    hub.emit('template_error', { runId: 'r', attempt: 1, error: undefined, ...{ extra: { nested: hostile } } } as never)
    expect(got).toHaveLength(1)
  })
})
