import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, isReliabilityFailFastError, ProviderError, retryTransient, strictOutputRules } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { crashingEngine, stepNames } from './support/crashing-engine.ts'

type Answer = 'valid' | 'invalid' | '503' | '429'

const Amount = Type.Object({ amount: Type.Integer() }, { additionalProperties: false })
const ask = { messages: [{ role: 'user' as const, content: 'how much?' }] }

/** The provider's answer to attempt `n` (0-based) of the script; past its end, a valid answer. */
function answerOf(script: readonly Answer[], n: number): ScriptedStep {
  switch (script[n] ?? 'valid') {
    case 'valid':
      return { content: `{"amount": ${n}}`, usage: { inputTokens: 10 + n, outputTokens: 3 } }
    case 'invalid':
      // Each invalid answer differs, so the stuck-loop rule never cuts the run short.
      return { content: `{"amount": "n${n}"}`, usage: { inputTokens: 10 + n, outputTokens: 3 } }
    case '503':
      return new ProviderError(`overloaded ${n}`, { kind: 'http-5xx', status: 503 })
    case '429':
      return new ProviderError(`slow down ${n}`, { kind: 'rate-limit', status: 429, retryAfterMs: 3 + n })
  }
}

/**
 * A run of `script` over `journal`: the provider answers by the attempt it is at (the attempts the journal holds), as a
 * model called again for the same attempt would; answers what the caller sees of it and how often the provider was called.
 */
async function runOf(script: readonly Answer[], journal: string[], crashAt?: number) {
  const attemptsJournaled = () => stepNames(journal).filter((name) => name.startsWith('attempt:')).length
  const provider = scripted(Array.from({ length: 20 }, () => () => answerOf(script, attemptsJournaled())))
  const gate = createGate({
    providers: provider,
    outputSchema: Amount,
    maxAttempts: 8,
    postDecide: [retryTransient({ maxRetries: 8, backoff: { initialMs: 5, maxMs: 50 } }), ...strictOutputRules(8, { stuckAfter: false })],
  })
  const seen = await gate.run(ask, { durable: crashingEngine('prop-run', journal, crashAt).port }).then(
    (r) => ({ ok: true as const, value: r.value, usage: r.usage, attempts: r.attempts.map((a) => [a.errorKind, a.decision, a.feedbackSent]) }),
    (e: unknown) => {
      if (!isReliabilityFailFastError(e)) throw e
      return { ok: false as const, kind: e.kind, attempts: e.attempts.map((a) => [a.errorKind, a.decision, a.feedbackSent]) }
    },
  )
  return { seen, calls: provider.calls }
}

describe('A durable gate run resumed after a crash', () => {
  it('answers what the uninterrupted run answers, calling the provider at most once more (the call in flight)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Answer>('valid', 'invalid', '503', '429'), { minLength: 1, maxLength: 8 }), fc.nat(), async (script, point) => {
        const whole = await runOf(script, [])
        const uninterrupted: string[] = []
        await runOf(script, uninterrupted)
        const crashAt = point % uninterrupted.length
        const journal: string[] = []
        const crashed = await runOf(script, journal, crashAt)
        expect(crashed.seen).toMatchObject({ ok: false, kind: 'durable-journal' })
        expect(journal).toEqual(uninterrupted.slice(0, crashAt))
        const resumed = await runOf(script, journal)
        expect(resumed.seen).toEqual(whole.seen)
        expect(journal).toEqual(uninterrupted)
        const total = crashed.calls + resumed.calls
        expect(total).toBeGreaterThanOrEqual(whole.calls)
        expect(total).toBeLessThanOrEqual(whole.calls + 1)
      }),
      { numRuns: 150 },
    )
  })
})
