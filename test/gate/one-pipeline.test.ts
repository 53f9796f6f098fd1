import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createGate,
  failoverRule,
  isReliabilityFailFastError,
  ProviderError,
  retryTransient,
  strictOutputRules,
  type GateConfig,
  type GateEventName,
  type GateResult,
  type ModelRequest,
  type Provider,
} from '../../src/index.ts'
import { GATE_EVENT_NAMES } from '../../src/events/event-names.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { heldProvider } from '../support/held-provider.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

/** A clock that moves 1 ms per read: equal results then mean equal reads at equal moments. */
function steppingClock(): () => number {
  let t = 1000.25
  return () => (t += 1)
}

// One of each way a first answer can fail to be accepted as it is, and the one that is.
const STEPS: Record<string, () => ScriptedStep> = {
  valid: () => validRefundJson,
  validWithSpaces: () => `  ${validRefundJson}\n`,
  fenced: () => `Here it is:\n\`\`\`json\n${validRefundJson}\n\`\`\``,
  repairable: () => `{"orderId": "42", "action": "refund", "amount": 50,}`,
  malformed: () => '{"orderId": "42", "action": ',
  prose: () => 'I cannot decide that.',
  schemaInvalid: () => '{"orderId": "42", "action": "refund", "amount": "USD 50"}',
  extraKey: () => '{"orderId": "42", "action": "refund", "amount": 50, "note": "x"}',
  protoKey: () => '{"orderId": "42", "action": "refund", "amount": 50, "__proto__": {"admin": true}}',
  escaped: () => '{"orderId": "4\\u0032", "action": "refund", "amount": 50}',
  toolCall: () => ({ content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: { id: 1 } }] }),
  refusal: () => ({ content: 'I will not.', stopReason: 'content_filter' }),
  truncated: () => ({ content: validRefundJson, stopReason: 'max_tokens' }),
  noUsage: () => ({ content: validRefundJson, usage: undefined as never }),
  brokenUsage: () => ({ content: validRefundJson, usage: { inputTokens: Number.NaN, outputTokens: -1 } }),
  rateLimited: () => new ProviderError('slow down', { kind: 'rate-limit', status: 429 }),
  serverError: () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 }),
  plainError: () => new Error('socket hang up'),
  malformedResponse: () => (() => null) as unknown as ScriptedStep,
}
const STEP_NAMES = Object.keys(STEPS)

/** What a run ended with: its result, or its error's observable fields. */
async function settle(promise: Promise<GateResult<unknown>>): Promise<unknown> {
  try {
    return { ok: await promise }
  } catch (error) {
    if (!isReliabilityFailFastError(error)) return { thrown: String(error) }
    return { failed: { name: error.name, kind: error.kind, message: error.message, attempts: error.attempts, usage: error.usage, costUsd: error.costUsd } }
  }
}

type Variant = 'plain' | 'failover' | 'priced' | 'transient'

function config(variant: Variant, providers: Provider[]): GateConfig<unknown> {
  const base = { outputSchema: Refund, now: steppingClock(), maxAttempts: 4 } as const
  if (variant === 'failover') return { ...base, providers, postDecide: [failoverRule(), ...strictOutputRules(3)] }
  if (variant === 'transient') return { ...base, providers: providers.slice(0, 1), postDecide: [retryTransient({ backoff: () => 0 }), ...strictOutputRules(3)] }
  if (variant === 'priced')
    return { ...base, providers: providers.slice(0, 1), postDecide: strictOutputRules(3), pricing: { m: { input: 1, output: 2 } }, model: 'm' }
  return { ...base, providers: providers.slice(0, 1), postDecide: strictOutputRules(3) }
}

/** Every event a run on its way to an accepted answer emits. */
const RUN_EVENTS = ['run_start', 'attempt_start', 'cost_tick', 'attempt_end', 'decision', 'run_end'] as const satisfies readonly GateEventName[]

/** A request as the provider got it, without the deadline's signal (the only key a watched run adds). */
function sent(request: ModelRequest): unknown {
  const { signal: _signal, ...rest } = request
  return rest
}

/**
 * Runs one script twice: on a gate nobody watches, and on the same configuration with a listener on
 * every event, a pass-through middleware and a deadline that never fires. One pipeline serves both:
 * answers what each gave and what each provider was asked.
 */
async function bothWays(variant: Variant, primary: string[], secondary: string[]) {
  const outcome = async (watched: boolean) => {
    const providers = [
      scripted(
        primary.map((n) => (STEPS[n] as () => ScriptedStep)()),
        { name: 'p' },
      ),
      scripted(
        secondary.map((n) => (STEPS[n] as () => ScriptedStep)()),
        { name: 's' },
      ),
    ]
    const base = config(variant, providers)
    const gate = createGate(
      watched
        ? {
            ...base,
            timeoutMs: 60_000,
            middleware: [
              function passThrough(_ctx, next) {
                return next()
              },
            ],
          }
        : base,
    )
    if (watched) for (const name of GATE_EVENT_NAMES) gate.on(name, () => {})
    const result = await settle(gate.run(ask('refund order 42'), { runId: 'run_fixed' }))
    return { result, asked: providers.map((p) => p.requests.map(sent)) }
  }
  return { quick: await outcome(false), full: await outcome(true) }
}

describe('one pipeline: what is attached never changes what a run gives', () => {
  it('a valid first answer gives the same result, log and clock reads whether anyone watches or not', async () => {
    const { quick, full } = await bothWays('plain', ['valid'], [])
    expect(quick).toEqual(full)
    const result = (quick.result as { ok: GateResult<unknown> }).ok
    expect(result.value).toEqual(validRefund)
    expect(result.runId).toBe('run_fixed')
    // Same keys in the same order (spreads and JSON alike).
    const fullResult = (full.result as { ok: GateResult<unknown> }).ok
    expect(Object.keys(result)).toEqual(Object.keys(fullResult))
    expect(Object.keys(result.lastAttempt)).toEqual(Object.keys(fullResult.lastAttempt))
    expect(JSON.stringify(result)).toBe(JSON.stringify(fullResult))
    // The stepping clock was read once at each end of the attempt: 1 ms, watched or not.
    expect(result.lastAttempt.latencyMs).toBe(1)
    expect(result.lastAttempt.elapsedMs).toBe(1)
  })

  it('every other first answer ends the same way whether anyone watches or not', async () => {
    for (const first of STEP_NAMES.filter((n) => n !== 'valid' && n !== 'validWithSpaces')) {
      const { quick, full } = await bothWays('plain', [first, 'valid', 'valid', 'valid'], [])
      expect(quick, `first answer: ${first}`).toEqual(full)
    }
  })

  it('an answer is parsed as often whether anyone watches or not: listeners cost no second check', async () => {
    for (const first of ['protoKey', 'schemaInvalid', 'extraKey', 'escaped', 'fenced']) {
      const parses = async (watched: boolean): Promise<number> => {
        const gate = createGate(config('plain', [scripted([(STEPS[first] as () => ScriptedStep)(), validRefundJson], { name: 'p' })]))
        if (watched) for (const name of GATE_EVENT_NAMES) gate.on(name, () => {})
        const parse = vi.spyOn(JSON, 'parse')
        try {
          await settle(gate.run(ask('refund order 42')))
          return parse.mock.calls.length
        } finally {
          parse.mockRestore()
        }
      }
      expect(await parses(false), `first answer: ${first}`).toBe(await parses(true))
    }
  })

  it('property: on any script of answers and failures, with failover, transient retries or pricing, watched and unwatched runs give the same result, error and requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Variant>('plain', 'failover', 'priced', 'transient'),
        fc.array(fc.constantFrom(...STEP_NAMES), { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom(...STEP_NAMES), { minLength: 0, maxLength: 3 }),
        async (variant, primary, secondary) => {
          const { quick, full } = await bothWays(variant, primary, secondary)
          expect(quick).toEqual(full)
        },
      ),
      { numRuns: 150 },
    )
  })

  it.each(RUN_EVENTS.map((name) => [name]))('a %s listener hears it on a run accepted at its first attempt', async (name) => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund })
    const seen: unknown[] = []
    gate.on(name as GateEventName, (payload) => seen.push(payload))
    await gate.run(ask('refund'))
    expect(seen.length).toBeGreaterThan(0)
  })

  it('a listener attached while the first attempt is in flight hears the rest of the run', async () => {
    const { provider, release } = heldProvider(validRefundJson)
    const gate = createGate({ providers: provider, outputSchema: Refund })
    const heard: string[] = []
    const pending = gate.run(ask('refund'))
    for (const name of ['attempt_end', 'decision', 'run_end'] as const) gate.on(name, () => heard.push(name))
    release()
    const result = await pending
    expect(result.value).toEqual(validRefund)
    expect(heard).toEqual(['attempt_end', 'decision', 'run_end'])
  })

  it('a provider that throws synchronously fails its attempt like one that rejects: the retry answers', async () => {
    let calls = 0
    const provider: Provider = {
      name: 'flaky',
      complete: (() => {
        calls++
        if (calls === 1) throw new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })
        return Promise.resolve({ content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' })
      }) as Provider['complete'],
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [retryTransient({ backoff: () => 0 }), ...strictOutputRules(3)] })
    const result = await gate.run(ask('refund'))
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['http-5xx', 'ok'])
  })

  it('runs without a run id get distinct ones, and the request sent carries the output schema, never a copy of the caller’s object mutated', async () => {
    const provider = scripted([validRefundJson, validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund })
    const request: ModelRequest = ask('refund')
    const frozen = Object.freeze({ ...request, messages: Object.freeze([...request.messages]) })
    const [a, b] = await Promise.all([gate.run(frozen), gate.run(frozen)])
    expect(a.runId).not.toBe(b.runId)
    expect(provider.requests[0]?.responseSchema).toBeDefined()
    expect(frozen).not.toHaveProperty('responseSchema')
  })

  it('an aborted signal ends the run as aborted', async () => {
    const controller = new AbortController()
    const provider: Provider = { name: 'hang', complete: () => new Promise(() => {}) }
    const gate = createGate({ providers: provider, outputSchema: Refund })
    const pending = gate.run(ask('refund'), { signal: controller.signal })
    controller.abort(new Error('user left'))
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' })
  })
})
