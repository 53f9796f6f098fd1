import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  Agent,
  createGate,
  defaultStuckLoopRule,
  ReliabilityFailFastError,
  strictOutputRules as libraryStrictOutputRules,
  stuckLoopRule,
  type GateEventMap,
  type ReliabilityRule,
  type ReliabilityScope,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

// agentfootprint's strict-output recipe (examples/features/12-strict-output.ts), typed in as written;
// only the imports and the scripted provider are ours.
interface Refund {
  action: 'refund' | 'reject'
  amount: number
}
const refundParser = {
  parse: (raw: unknown): Refund => {
    if (typeof raw !== 'object' || raw === null) {
      throw new Error('expected object')
    }
    const r = raw as { action?: unknown; amount?: unknown }
    if (r.action !== 'refund' && r.action !== 'reject') {
      throw new Error(`action must be 'refund' or 'reject' (got ${JSON.stringify(r.action)})`)
    }
    if (typeof r.amount !== 'number') {
      throw new Error(`amount must be a number (got ${JSON.stringify(r.amount)})`)
    }
    return { action: r.action, amount: r.amount }
  },
  description: 'Refund decision: { action: "refund" | "reject", amount: number }',
}

function strictOutputRules(maxRetries: number): ReliabilityRule[] {
  return [
    defaultStuckLoopRule, // fail-fast on 2 identical errors in a row
    {
      when: (s: ReliabilityScope) => s.validationError !== undefined && s.attempt < maxRetries,
      then: 'retry',
      kind: 'schema-retry',
      feedbackForLLM: (s: ReliabilityScope) => `Previous output failed validation: ${s.validationError!.message}. Return valid JSON conforming to the schema.`,
    },
    {
      when: (s: ReliabilityScope) => s.validationError !== undefined,
      then: 'fail-fast',
      kind: 'schema-retry-exhausted',
    },
  ]
}

// Distinct bad answers, so the stuck-loop rule stays out of the way.
const bad = (n: number): string => `{"action":"refund","amount":"USD ${n}"}`

describe('agentfootprint strict-output recipe', () => {
  it('makes exactly maxRetries provider calls: retry runs out at attempt === 3', async () => {
    const provider = scripted([bad(1), bad(2), bad(3), bad(4)])
    const agent = Agent.create({ provider, model: 'mock' })
      .system('You decide refund requests. Output JSON.')
      .outputSchema(refundParser)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const error = await agent.runTyped<Refund>({ message: 'refund order #42 for $50' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReliabilityFailFastError)
    expect((error as ReliabilityFailFastError).kind).toBe('schema-retry-exhausted')
    expect(provider.calls).toBe(3)
  })

  it('returns the parsed value after a retry, typed by runTyped<Refund>', async () => {
    const provider = scripted([bad(50), '{"action":"refund","amount":50}'])
    const agent = Agent.create({ provider, model: 'mock' })
      .system('You decide refund requests. Output JSON.')
      .outputSchema(refundParser)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const result = await agent.runTyped<Refund>({ message: 'refund order #42 for $50' })
    expectTypeOf(result).toEqualTypeOf<Refund>()
    expect(result).toEqual({ action: 'refund', amount: 50 })
  })

  it('stops a stuck loop after the second identical failure, not after maxRetries = 5', async () => {
    const provider = scripted([bad(50), bad(50), bad(50), bad(50)])
    let validationFailures = 0
    const agent = Agent.create({ provider, model: 'mock' })
      .system('You decide refund requests. Output JSON.')
      .outputSchema(refundParser)
      .reliability({ postDecide: strictOutputRules(5) })
      .build()
    agent.on('validation_failed', () => {
      validationFailures += 1
    })
    const error = await agent.runTyped<Refund>({ message: 'refund order #42 for $50' }).catch((e: unknown) => e)
    expect((error as ReliabilityFailFastError).kind).toBe('schema-stuck-loop')
    expect(validationFailures).toBe(2)
  })
})

describe('attempt numbering', () => {
  it('is one numbering in the scope, the events, the attempt logs and the templates', async () => {
    const seen: { phase: string; attempt: number }[] = []
    const record = (s: ReliabilityScope): boolean => {
      seen.push({ phase: s.phase, attempt: s.attempt })
      return false
    }
    const templateAttempts: number[] = []
    const provider = scripted([bad(1), bad(2), '{"action":"refund","amount":3}'])
    const gate = createGate({
      providers: provider,
      outputSchema: refundParser,
      preCheck: [{ when: record, then: 'fail-fast', kind: 'never' }],
      postDecide: [{ when: record, then: 'fail-fast', kind: 'never' }, ...libraryStrictOutputRules(3)],
      errorTemplate: (vars) => {
        templateAttempts.push(vars.attempt)
        return `fix it (attempt ${vars.attempt})`
      },
    })
    const events: { name: string; attempt: number }[] = []
    gate.on('attempt_start', (e) => events.push({ name: 'attempt_start', attempt: e.attempt }))
    gate.on('validation_failed', (e) => events.push({ name: 'validation_failed', attempt: e.attempt }))
    gate.on('retry', (e) => events.push({ name: 'retry', attempt: e.nextAttempt }))
    const result = await gate.run({ messages: [{ role: 'user', content: 'refund order #42' }] })

    // PreCheck before call n sees n - 1 calls made; PostDecide after call n sees n.
    expect(seen).toEqual([
      { phase: 'pre-check', attempt: 0 },
      { phase: 'post-decide', attempt: 1 },
      { phase: 'pre-check', attempt: 1 },
      { phase: 'post-decide', attempt: 2 },
      { phase: 'pre-check', attempt: 2 },
      { phase: 'post-decide', attempt: 3 },
    ])
    expect(result.attempts.map((a) => a.attempt)).toEqual([1, 2, 3])
    expect(events).toEqual([
      { name: 'attempt_start', attempt: 1 },
      { name: 'validation_failed', attempt: 1 },
      { name: 'retry', attempt: 2 },
      { name: 'attempt_start', attempt: 2 },
      { name: 'validation_failed', attempt: 2 },
      { name: 'retry', attempt: 3 },
      { name: 'attempt_start', attempt: 3 },
    ])
    // The template's `attempt` is the attempt about to be made (pyconveyor passes attempt_num + 1).
    expect(templateAttempts).toEqual([2, 3])
    expect(provider.requests[1]?.messages.at(-1)?.content).toBe('fix it (attempt 2)')
  })
})

// agentfootprint's own unit tests build a scope by hand with nothing but the history
// (test/reliability/strict-output.test.ts); its rules must read such a scope as it does.
const handBuilt = (history: string[]): ReliabilityScope => ({ validationErrorHistory: history }) as unknown as ReliabilityScope

describe('defaultStuckLoopRule on a scope built by hand', () => {
  it('matches when the last 2 messages of the history are identical', () => {
    expect(defaultStuckLoopRule.when(handBuilt(['oops', 'oops']))).toBe(true)
    expect(defaultStuckLoopRule.when(handBuilt(['err1', 'err2', 'err2']))).toBe(true)
  })

  it("carries agentfootprint's label", () => {
    expect(defaultStuckLoopRule.label).toBe('model produced the same validation error twice in a row')
    expect(stuckLoopRule(3).label).toBe('model produced the same validation error 3 times in a row')
  })

  it('does not match one message alone, or two different ones', () => {
    expect(defaultStuckLoopRule.when(handBuilt(['oops']))).toBe(false)
    expect(defaultStuckLoopRule.when(handBuilt(['err2', 'err1']))).toBe(false)
  })
})

describe('feedbackForLLM that throws', () => {
  it("sends agentfootprint's generic feedback, ephemeral, and the run goes on", async () => {
    const provider = scripted(['{"bad":true}', '{"action":"refund","amount":1}'])
    const agent = Agent.create({ provider, model: 'mock' })
      .outputSchema(refundParser)
      .reliability({
        postDecide: [
          {
            when: (s) => s.validationError !== undefined && s.attempt < 3,
            then: 'retry',
            kind: 'schema-retry',
            feedbackForLLM: () => {
              throw new Error('feedback callback exploded')
            },
          },
        ],
      })
      .build()
    expect(await agent.runTyped<Refund>({ message: 'go' })).toEqual({ action: 'refund', amount: 1 })
    const feedback = provider.requests[1]?.messages.at(-1)
    expect(feedback).toEqual({ role: 'user', content: 'Previous output failed validation. Return valid JSON conforming to the schema.', ephemeral: true })
  })
})

describe("PreCheck 'continue'", () => {
  it('is accepted and lets the attempt go on; the next matching rule is never asked', async () => {
    const provider = scripted(['{"action":"refund","amount":5}'])
    const decisions: string[] = []
    const gate = createGate({
      providers: provider,
      outputSchema: refundParser,
      preCheck: [
        { when: (s) => s.attempt === 0, then: 'continue', kind: 'first-call' },
        { when: () => true, then: 'fail-fast', kind: 'never-reached' },
      ],
    })
    gate.on('decision', (e) => decisions.push(`${e.phase}:${e.decision}:${e.kind}`))
    const result = await gate.run({ messages: [{ role: 'user', content: 'refund' }] })
    expect(result.value).toEqual({ action: 'refund', amount: 5 })
    expect(provider.calls).toBe(1)
    expect(decisions[0]).toBe('pre-check:continue:first-call')
  })
})

describe('ReliabilityFailFastError.payload', () => {
  const failing = (message: string) => scripted([new Error(message)])

  it('names the phase, the attempts made, the provider, the error kind and the error message', async () => {
    const agent = Agent.create({ provider: failing('boom-int'), model: 'm' })
      .reliability({ postDecide: [{ when: () => true, then: 'fail-fast', kind: 'k-int', label: 'L-int' }] })
      .build()
    const error = (await agent.run({ message: 'hi' }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error).toBeInstanceOf(ReliabilityFailFastError)
    expect(error.payload).toEqual({ phase: 'post-decide', attempt: 1, providerUsed: 'scripted', errorKind: 'unknown', errorMessage: 'boom-int' })
    expect(Object.isFrozen(error.payload)).toBe(true)
  })

  it('says pre-check, 0 attempts and no error message when a PreCheck rule stops the first attempt', async () => {
    const provider = scripted(['never'])
    const agent = Agent.create({ provider, model: 'm' })
      .reliability({ preCheck: [{ when: () => true, then: 'fail-fast', kind: 'budget', label: 'Over budget' }] })
      .build()
    const error = (await agent.run({ message: 'hi' }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.payload).toEqual({ phase: 'pre-check', attempt: 0, providerUsed: 'scripted', errorKind: 'ok' })
    expect(error.cause).toBeUndefined()
    expect(provider.calls).toBe(0)
  })
})

describe('ReliabilityFailFastError.reason', () => {
  it('is reliability-post-decide: <label>, or <kind> without a label, when a PostDecide rule decides', async () => {
    const cases = [
      { kind: 'a', label: 'Alpha' },
      { kind: 'rate-limit', label: 'Too many requests' },
      { kind: 'x_9-Z', label: 'Mixed 123 !@#' },
      { kind: 'no-label-kind' },
    ]
    for (const c of cases) {
      const agent = Agent.create({ provider: scripted([new Error('upstream 500')]), model: 'm' })
        .reliability({ postDecide: [{ when: () => true, then: 'fail-fast', ...c }] })
        .build()
      const error = (await agent.run({ message: 'hi' }).catch((e: unknown) => e)) as ReliabilityFailFastError
      expect(error.kind).toBe(c.kind)
      expect(error.reason).toBe(`reliability-post-decide: ${c.label ?? c.kind}`)
      expect(error.payload.errorMessage).toBe('upstream 500')
    }
  })

  it('is reliability-pre-check: <label> when a PreCheck rule stops the run', async () => {
    const gate = createGate({ providers: scripted(['x']), preCheck: [{ when: () => true, then: 'fail-fast', kind: 'budget', label: 'Over budget' }] })
    const error = (await gate.run({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.reason).toBe('reliability-pre-check: Over budget')
  })

  it('says what went wrong after the phase when no rule decided', async () => {
    const gate = createGate({ providers: scripted([new Error('boom')]) })
    const error = (await gate.run({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.reason).toMatch(/^reliability-post-decide: provider call failed \(unknown: boom\)/)
  })
})

describe('ReliabilityFailFastError.message', () => {
  it('is [reliability] <kind>: <reason>', async () => {
    const gate = createGate({ providers: scripted(['x']), preCheck: [{ when: () => true, then: 'fail-fast', kind: 'budget', label: 'Over budget' }] })
    const error = (await gate.run({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.message).toBe('[reliability] budget: reliability-pre-check: Over budget')
    expect(error.name).toBe('ReliabilityFailFastError')
    expect(error.code).toBe('ERR_RELIABILITY_FAIL_FAST')
  })
})

describe('fail_fast event', () => {
  it("carries the provider, the error kind and the error message, as agentfootprint's reliability.fail_fast does", async () => {
    const gate = createGate({ providers: scripted([new Error('boom-1')]), postDecide: [{ when: () => true, then: 'fail-fast', kind: 'unrecoverable' }] })
    const seen: GateEventMap['fail_fast'][] = []
    gate.on('fail_fast', (e) => seen.push(e))
    const error = (await gate.run({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({
      attempt: 1,
      kind: 'unrecoverable',
      reason: error.reason,
      phase: 'post-decide',
      providerUsed: 'scripted',
      errorKind: 'unknown',
      errorMessage: 'boom-1',
    })
  })
})

describe('recovered event', () => {
  const retryOnError = (max: number): ReliabilityRule[] => [
    { when: (s) => s.error !== undefined && s.attempt < max, then: 'retry', kind: 'retry-on-error' },
    { when: (s) => s.error !== undefined, then: 'fail-fast', kind: 'exhausted' },
  ]

  it('says it recovered via retry, after how many failures and of which kind', async () => {
    const gate = createGate({ providers: scripted([new Error('fail 1'), new Error('fail 2'), 'healed']), postDecide: retryOnError(5) })
    const seen: GateEventMap['recovered'][] = []
    gate.on('recovered', (e) => seen.push(e))
    await gate.run({ messages: [{ role: 'user', content: 'hi' }] })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ attempt: 3, recoveredVia: 'retry', priorFailures: 2, failedAttempts: 2, errorKind: 'unknown' })
  })

  it('says fallback when the configured fallback answered', async () => {
    const gate = createGate({
      providers: scripted([new Error('main-down')]),
      fallback: () => 'from-fallback',
      postDecide: [{ when: (s) => s.error !== undefined, then: 'fallback', kind: 'use-fallback' }],
    })
    const seen: GateEventMap['recovered'][] = []
    gate.on('recovered', (e) => seen.push(e))
    const result = await gate.run({ messages: [{ role: 'user', content: 'hi' }] })
    expect(result.response.content).toBe('from-fallback')
    expect(seen[0]).toMatchObject({ recoveredVia: 'fallback', priorFailures: 1 })
  })
})

describe('Agent builder', () => {
  it('refuses a second .reliability() call, saying it is already set', () => {
    expect(() =>
      Agent.create({ provider: scripted(['x']), model: 'mock' })
        .reliability({})
        .reliability({}),
    ).toThrow(/already set/)
  })
})

describe('ReliabilityFailFastError.message after a rule decided', () => {
  it('names what failed after the reason, which names only the rule', async () => {
    const gate = createGate({
      providers: scripted([new Error('upstream 500')]),
      postDecide: [{ when: () => true, then: 'fail-fast', kind: 'unrecoverable', label: 'unrecoverable error' }],
    })
    const error = (await gate.run({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.reason).toBe('reliability-post-decide: unrecoverable error')
    expect(error.message).toBe('[reliability] unrecoverable: reliability-post-decide: unrecoverable error (upstream 500)')
  })
})
