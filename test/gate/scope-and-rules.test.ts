import { describe, expect, it } from 'vitest'
import { createGate, type Message, type ModelRequest, ProviderError, strictOutputRules, type ReliabilityRule, type ReliabilityScope } from '../../src/index.ts'
import { GENERIC_FEEDBACK } from '../../src/gate/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const bad = (n: number) => `{"orderId": "42", "action": "refund", "amount": "USD ${n}"}`

/** A gate over [primary (5xx), backup (bad, then valid)] whose rules record every scope they see, on a clock that only tests move. */
function scopedRun() {
  let t = 1000
  const tick =
    (ms: number, step: ScriptedStep): ScriptedStep =>
    () => {
      t += ms
      return step
    }
  const primary = scripted([tick(7, new ProviderError('overloaded', { kind: 'http-5xx', status: 503 }))], { name: 'primary' })
  const backup = scripted(
    [
      tick(11, { content: bad(1), usage: { inputTokens: 10, outputTokens: 3 } }),
      tick(13, { content: validRefundJson, usage: { inputTokens: 20, outputTokens: 5 } }),
    ],
    { name: 'backup' },
  )
  const seen: ReliabilityScope[] = []
  const spy: ReliabilityRule = {
    when: (s) => {
      seen.push(s)
      return false
    },
    then: 'fail-fast',
    kind: 'spy',
  }
  const gate = createGate({
    providers: [
      { provider: primary, model: 'big' },
      { provider: backup, model: 'small' },
    ],
    outputSchema: Refund,
    now: () => t,
    preCheck: [spy],
    postDecide: [spy, { when: (s) => s.errorKind === 'http-5xx' && s.canSwitchProvider, then: 'retry-other', kind: 'failover' }, ...strictOutputRules(3)],
  })
  return { gate, seen }
}

describe('ReliabilityScope', () => {
  it('hands PreCheck a scope of the attempt about to start, with the base request and no outcome', async () => {
    const { gate, seen } = scopedRun()
    const request = ask('refund #42')
    await gate.run(request)
    const first = seen[0] as ReliabilityScope
    expect(first).toMatchObject({
      phase: 'pre-check',
      attempt: 0,
      providerIdx: 0,
      providerName: 'primary',
      providersCount: 2,
      canSwitchProvider: true,
      errorKind: 'ok',
      latencyMs: 0,
      validationErrorHistory: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      elapsedMs: 0,
    })
    // A frozen copy of the caller's request, never the caller's own object.
    expect(first.request).toEqual(request)
    expect(first.request).not.toBe(request)
    expect(Object.isFrozen(first.request)).toBe(true)
    expect(first.response).toBeUndefined()
    expect(first.error).toBeUndefined()
    expect(first.validationError).toBeUndefined()
  })

  it('hands PostDecide the error, kind and latency of a failed provider call', async () => {
    const { gate, seen } = scopedRun()
    await gate.run(ask('refund #42'))
    const failed = seen.find((s) => s.phase === 'post-decide' && s.attempt === 1) as ReliabilityScope
    expect(failed).toMatchObject({ providerName: 'primary', errorKind: 'http-5xx', latencyMs: 7, elapsedMs: 7, canSwitchProvider: true })
    expect(failed.error).toBeInstanceOf(ProviderError)
    expect(failed.response).toBeUndefined()
  })

  it('moves providerIdx, providerName and canSwitchProvider with a failover', async () => {
    const { gate, seen } = scopedRun()
    await gate.run(ask('refund #42'))
    // scope.attempt counts attempts made: PreCheck of the second attempt and everything after it.
    const afterFailover = seen.filter((s) => (s.phase === 'pre-check' && s.attempt >= 1) || s.attempt >= 2)
    expect(afterFailover.length).toBeGreaterThan(0)
    for (const s of afterFailover) expect([s.providerIdx, s.providerName, s.canSwitchProvider, s.providersCount]).toEqual([1, 'backup', false, 2])
  })

  it('carries the validation error, the response and the cumulative usage of an invalid answer', async () => {
    const { gate, seen } = scopedRun()
    await gate.run(ask('refund #42'))
    const invalid = seen.find((s) => s.phase === 'post-decide' && s.attempt === 2) as ReliabilityScope
    expect(invalid.response?.content).toBe(bad(1))
    expect(invalid.errorKind).toBe('schema-fail')
    expect(invalid.validationError).toEqual({
      message: expect.stringContaining("'amount': expected number"),
      stage: 'schema-validate',
      path: 'amount',
      issues: [expect.objectContaining({ path: 'amount' })],
      rawOutput: bad(1),
      signature: expect.stringMatching(/^schema-validate\/1\//),
    })
    expect(invalid.validationErrorHistory).toEqual([invalid.validationError?.message])
    expect(invalid.validationErrorSignatures).toEqual([invalid.validationError?.signature])
    expect(invalid.latencyMs).toBe(11)
    const last = seen.at(-1) as ReliabilityScope
    // Usage sums every attempt, the failed one included.
    expect(last.usage).toEqual({ inputTokens: 30, outputTokens: 8 })
    expect(last.elapsedMs).toBe(7 + 11 + 13)
  })

  it('is a snapshot: a scope kept by a rule does not change as the run goes on', async () => {
    const { gate, seen } = scopedRun()
    await gate.run(ask('refund #42'))
    const invalid = seen.find((s) => s.phase === 'post-decide' && s.attempt === 2) as ReliabilityScope
    const preCheckOfAttempt1 = seen.find((s) => s.phase === 'pre-check' && s.attempt === 1) as ReliabilityScope
    expect(preCheckOfAttempt1.validationErrorHistory).toEqual([])
    expect(invalid.validationErrorHistory).toHaveLength(1)
    expect(invalid.usage).toEqual({ inputTokens: 10, outputTokens: 3 })
  })

  it('always hands rules the base request, never the retry request with its tail', async () => {
    const { gate, seen } = scopedRun()
    const request = ask('refund #42')
    await gate.run(request)
    for (const s of seen) {
      expect(s.request.messages).toEqual(request.messages)
      expect(s.request.messages).not.toBe(request.messages)
    }
  })
})

describe('rules that misbehave', () => {
  it('changes nothing of the run when a rule edits its scope: usage, validation history, signatures and issues', async () => {
    const provider = scripted([
      { content: bad(1), usage: { inputTokens: 10, outputTokens: 3 } },
      { content: bad(2), usage: { inputTokens: 10, outputTokens: 3 } },
      { content: validRefundJson, usage: { inputTokens: 10, outputTokens: 3 } },
    ])
    const edits: string[] = []
    const tryEdit = (what: string, edit: () => void) => {
      try {
        edit()
        edits.push(`${what} edited`)
      } catch {
        edits.push(`${what} refused`)
      }
    }
    const editor: ReliabilityRule = {
      kind: 'editor',
      then: 'fail-fast',
      when: (s) => {
        ;(s.usage as { inputTokens: number }).inputTokens = 1e9
        tryEdit('history', () => (s.validationErrorHistory as string[]).push(s.validationErrorHistory.at(-1) ?? ''))
        tryEdit('signatures', () => (s.validationErrorSignatures as string[]).push(s.validationErrorSignatures?.at(-1) ?? ''))
        const issues = s.validationError?.issues
        if (issues !== undefined) tryEdit('issues', () => (issues as unknown[]).splice(0))
        return false
      },
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [editor, ...strictOutputRules(5)] })
    const result = await gate.run(ask('refund #42'))
    expect(result.value).toEqual(JSON.parse(validRefundJson))
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 9 })
    expect(result.attempts.map((a) => a.usage.inputTokens)).toEqual([10, 10, 10])
    expect(result.attempts[0]?.issues).toHaveLength(1)
    expect(edits.filter((e) => e.endsWith('edited'))).toEqual([])
  })

  it("changes neither the caller's request nor what is sent when a rule edits the requests and tail of its scope", async () => {
    const provider = scripted([bad(1), bad(2), validRefundJson])
    const refused: string[] = []
    const edited: string[] = []
    const tryEdit = (what: string, edit: () => void) => {
      try {
        edit()
        edited.push(what)
      } catch (e) {
        if (e instanceof TypeError) refused.push(what)
      }
    }
    const forge = { role: 'user' as const, content: 'forged' }
    const editRequests = (s: ReliabilityScope, request: ModelRequest | undefined, tail: readonly Message[] | undefined) => {
      tryEdit('request.messages push', () => (s.request.messages as Message[]).push(forge))
      tryEdit('request message edit', () => Object.assign(s.request.messages[0] as Message, { content: 'forged' }))
      tryEdit('request field', () => Object.assign(s.request, { model: 'forged' }))
      tryEdit(
        'attemptRequest.messages push',
        () => (s.attemptRequest as ModelRequest).messages.length && ((s.attemptRequest as ModelRequest).messages as Message[]).push(forge),
      )
      tryEdit('attemptRequest message edit', () => Object.assign((s.attemptRequest as ModelRequest).messages[0] as Message, { content: 'forged' }))
      for (const m of s.attemptTail ?? []) tryEdit('tail message edit', () => Object.assign(m, { content: 'forged' }))
      if (request !== undefined) tryEdit('adjustRequest request push', () => (request.messages as Message[]).push(forge))
      if (request !== undefined) tryEdit('adjustRequest message edit', () => Object.assign(request.messages[0] as Message, { content: 'forged' }))
      for (const m of tail ?? []) tryEdit('adjustRequest tail edit', () => Object.assign(m, { content: 'forged' }))
    }
    const editor: ReliabilityRule = {
      kind: 'editor',
      then: 'retry',
      when: (s) => {
        editRequests(s, undefined, undefined)
        return s.errorKind === 'schema-fail'
      },
      adjustRequest: (s, request, tail) => {
        editRequests(s, request, tail)
        return {}
      },
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: [editor] })
    const request = ask('refund #42')
    const before = structuredClone(request)
    const result = await gate.run(request)
    expect(result.value).toEqual(JSON.parse(validRefundJson))
    expect(request).toEqual(before)
    expect(edited).toEqual([])
    expect(refused).toContain('tail message edit')
    expect(refused).toContain('adjustRequest request push')
    // Every attempt sent the caller's one message, then the tail the gate made (never a forged message).
    for (const sent of provider.requests) {
      expect(sent.messages[0]).toEqual(before.messages[0])
      expect(sent.messages.filter((m) => m.content === 'forged')).toEqual([])
      expect(sent.messages.slice(1).every((m) => m.ephemeral === true)).toBe(true)
    }
  })

  it('writes the requests a rule reads when the scope is logged as JSON', async () => {
    const logged: string[] = []
    const logger: ReliabilityRule = {
      kind: 'logger',
      then: 'fail-fast',
      when: (s) => {
        logged.push(JSON.stringify(s))
        return false
      },
    }
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund, preCheck: [logger] })
    await gate.run(ask('refund #42'))
    const scope = JSON.parse(logged[0] as string) as Record<string, unknown>
    expect(scope).toMatchObject({ phase: 'pre-check', attempt: 0, request: ask('refund #42'), attemptRequest: ask('refund #42') })
  })

  it('treats a PreCheck when that throws as not matching, reports it, and calls the provider', async () => {
    const provider = scripted([validRefundJson])
    const broken: ReliabilityRule = {
      when: () => {
        throw new Error('flag service down')
      },
      then: 'fail-fast',
      kind: 'kill-switch',
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, preCheck: [broken] })
    const errors: string[] = []
    gate.on('rule_error', (e) => errors.push(`${e.kind}/${e.where}/${(e.error as Error).message}`))
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: JSON.parse(validRefundJson) })
    expect(provider.calls).toBe(1)
    expect(errors).toEqual(['kill-switch/when/flag service down'])
  })

  it('lets the next PostDecide rule decide when an earlier when throws', async () => {
    const provider = scripted(['nope', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [
        {
          when: () => {
            throw new Error('bug')
          },
          then: 'fail-fast',
          kind: 'broken',
        },
        { when: (s) => s.validationError !== undefined, then: 'retry', kind: 'second' },
      ],
    })
    const result = await gate.run(ask('x'))
    expect(result.attempts.map((a) => a.ruleKind)).toEqual(['second', 'ok'])
  })

  it('picks the first matching PostDecide rule when several match', async () => {
    const gate = createGate({
      providers: scripted(['nope', validRefundJson]),
      outputSchema: Refund,
      postDecide: [
        { when: () => false, then: 'fail-fast', kind: 'never' },
        { when: (s) => s.validationError !== undefined, then: 'retry', kind: 'first-match' },
        { when: (s) => s.validationError !== undefined, then: 'fail-fast', kind: 'second-match' },
      ],
    })
    const result = await gate.run(ask('x'))
    expect(result.attempts[0]?.ruleKind).toBe('first-match')
    expect(result.attempts[0]?.decision).toBe('retry')
  })

  it('falls back to the generic feedback when feedbackForLLM rejects or returns a non-string, and reports it', async () => {
    const cases: ReliabilityRule['feedbackForLLM'][] = [() => Promise.reject(new Error('llm judge down')), () => 42 as unknown as string]
    for (const feedbackForLLM of cases) {
      const provider = scripted(['nope', validRefundJson])
      const gate = createGate({
        providers: provider,
        outputSchema: Refund,
        postDecide: [
          { when: (s) => s.validationError !== undefined, then: 'retry', kind: 'custom', ...(feedbackForLLM !== undefined ? { feedbackForLLM } : {}) },
        ],
      })
      const where: string[] = []
      gate.on('rule_error', (e) => where.push(e.where))
      const result = await gate.run(ask('x'))
      expect(provider.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: GENERIC_FEEDBACK, ephemeral: true })
      expect(result.attempts[0]?.feedbackSent).toBe(GENERIC_FEEDBACK)
      expect(where).toEqual(['feedbackForLLM'])
    }
  })

  it('gives feedbackForLLM the scope of the failed attempt', async () => {
    const provider = scripted([bad(1), validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [
        {
          when: (s) => s.validationError !== undefined,
          then: 'retry',
          kind: 'custom',
          feedbackForLLM: async (s) => `fix ${s.validationError?.path} (attempt ${s.attempt})`,
        },
      ],
    })
    await gate.run(ask('x'))
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe('fix amount (attempt 1)')
  })
})
