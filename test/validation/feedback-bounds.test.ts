import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  Agent,
  createGate,
  defaultStuckLoopRule,
  isReliabilityFailFastError,
  lastNValidationErrorsMatch,
  strictOutputRules,
  tool,
  type Message,
  type ReliabilityScope,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import {
  boundJsonValue,
  compileSchema,
  countFeedbackTokens,
  fitTail,
  formatFeedback,
  MAX_PROBLEM,
  MAX_QUOTED_PATH,
  summarizeFailure,
  TRUNCATION_MARKER,
  type ValidationIssue,
} from '../../src/validation/index.ts'
import { ask } from '../support/schemas.ts'
import { MAX_COLLECTED_ERRORS } from '../../src/validation/building-blocks.ts'

const Closed = Type.Object({ name: Type.String() }, { additionalProperties: false })
const tailOf = (messages: readonly Message[] | undefined) => (messages ?? []).filter((m) => m.ephemeral === true)
const tailChars = (messages: readonly Message[]) =>
  messages.reduce((n, m) => n + m.content.length + (m.toolCalls === undefined ? 0 : JSON.stringify(m.toolCalls.map((c) => c.args)).length), 0)
const withKeys = (keys: readonly string[]) => JSON.stringify({ name: 'x', ...Object.fromEntries(keys.map((k, i) => [k, i])) })

describe('Bounded retry tail', () => {
  it('keeps the tail within maxFeedbackChars when the model invents two 200,000-character keys', async () => {
    const provider = scripted([withKeys(['a'.repeat(200_000), 'b'.repeat(200_000)]), '{"name": "ok"}'])
    await createGate({ providers: provider, outputSchema: Closed, postDecide: strictOutputRules(3), maxFeedbackChars: 2000 }).run(ask('x'))
    const tail = tailOf(provider.requests[1]?.messages)
    expect(tail).toHaveLength(2)
    expect(tailChars(tail)).toBeLessThanOrEqual(2000)
    expect(tail[0]?.content.endsWith(TRUNCATION_MARKER)).toBe(true)
    expect(tail[1]?.content).toContain("- 'aaaa")
  })

  it('keeps the tail within maxFeedbackTokens too', async () => {
    const provider = scripted([withKeys(['a'.repeat(50_000), 'b'.repeat(50_000)]), '{"name": "ok"}'])
    await createGate({ providers: provider, outputSchema: Closed, postDecide: strictOutputRules(3), maxFeedbackTokens: 300 }).run(ask('x'))
    const tail = tailOf(provider.requests[1]?.messages)
    expect(tail.reduce((n, m) => n + countFeedbackTokens(m.content), 0)).toBeLessThanOrEqual(300)
  })

  it('keeps the tool-argument tail within the bound when the arguments hold a 1 MB key', async () => {
    const execute = async () => 'done'
    const lookup = tool({ name: 'lookup', description: 'Look up', input: Type.Object({ id: Type.String() }, { additionalProperties: false }), execute })
    const provider = scripted([
      { content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: { id: 'x', ['k'.repeat(1_000_000)]: 1 } }] },
      { content: '', toolCalls: [{ id: 'c2', name: 'lookup', args: { id: 'x' } }] },
      'Done.',
    ])
    const agent = Agent.create({ provider, model: 'm' }).tools([lookup]).reliability({ maxFeedbackChars: 2000 }).build()
    await agent.runDetailed('look it up')
    const tail = tailOf(provider.requests[1]?.messages)
    expect(tail.map((m) => m.role)).toEqual(['assistant', 'tool'])
    expect(tailChars(tail)).toBeLessThanOrEqual(2000)
    expect(tail[1]?.content).toContain('unknown field')
  })

  it('fits any feedback and echo within the bounds, in characters and tokens', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3000 }),
        fc.string({ maxLength: 3000 }),
        fc.integer({ min: 0, max: 2500 }),
        fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
        (feedback, echo, maxChars, maxTokens) => {
          const fitted = fitTail(feedback, echo, { maxChars, maxTokens })
          expect(fitted.feedback.length + fitted.echo.length).toBeLessThanOrEqual(maxChars)
          if (maxTokens !== undefined) expect(countFeedbackTokens(fitted.feedback) + countFeedbackTokens(fitted.echo)).toBeLessThanOrEqual(maxTokens)
          if (feedback.length + echo.length <= maxChars && maxTokens === undefined) expect(fitted).toEqual({ feedback, echo })
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('bounds any JSON value to its budget, keeping an object an object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 500 }), fc.jsonValue({ maxDepth: 3 })), fc.integer({ min: 40, max: 1000 }), (args, maxChars) => {
        const bounded = boundJsonValue(args, { maxChars })
        const text = typeof bounded === 'string' ? bounded : JSON.stringify(bounded)
        expect(text.length).toBeLessThanOrEqual(maxChars)
      }),
      { numRuns: 200 },
    )
    expect(boundJsonValue({ ['k'.repeat(1_000_000)]: 1 }, { maxChars: 300 })).toEqual({ [`${'k'.repeat(150)}…`]: 1 })
  })

  it('bounds every feedback line and the summary, whatever the issues hold', () => {
    const huge: ValidationIssue = {
      path: 'p'.repeat(100_000),
      segments: ['p'.repeat(100_000)],
      code: 'other',
      message: 'm'.repeat(100_000),
      expected: 'e'.repeat(100_000),
    }
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<ValidationIssue>(huge, { ...huge, code: 'invalid_enum' }, { ...huge, code: 'unknown_property' }), { maxLength: 60 }),
        (issues) => {
          const text = formatFeedback({ target: 'final', stage: 'schema-validate', issues })
          for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(MAX_QUOTED_PATH + MAX_PROBLEM + 40)
          expect(text.split('\n').length).toBeLessThanOrEqual(20 + 4)
          expect(summarizeFailure('schema-validate', issues).length).toBeLessThanOrEqual(5 * (MAX_QUOTED_PATH + MAX_PROBLEM + 10) + 40)
        },
      ),
      { numRuns: 50 },
    )
  })
})

describe('Full issue sets', () => {
  const nineKeys = (last: string) => withKeys(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', last])

  it('lists all nine unknown keys of an answer, not a one-line "does not match"', () => {
    const verdict = compileSchema(Closed).validate(JSON.parse(nineKeys('k9')))
    expect(verdict).toMatchObject({ ok: false })
    expect((verdict as unknown as { issues: ValidationIssue[] }).issues.map((i) => i.path)).toEqual(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9'])
  })

  it('lists twenty issues in the feedback, then how many more', () => {
    const verdict = compileSchema(Closed).validate(JSON.parse(withKeys(Array.from({ length: 30 }, (_, i) => `x${i}`))))
    const text = formatFeedback({ target: 'final', stage: 'schema-validate', issues: (verdict as unknown as { issues: ValidationIssue[] }).issues })
    expect(text.match(/^- 'x\d+': unknown field/gm)).toHaveLength(20)
    expect(text).toContain('- … and 10 more issues')
  })

  it('collects at most 1,000 issues of an answer from any kind of schema, as from TypeBox', () => {
    const wrong = Array.from({ length: 5_000 }, (_, i) => i)
    for (const schema of [Type.Array(Type.String()), z.array(z.string())]) {
      const verdict = compileSchema(schema as never).validate(wrong)
      const issues = (verdict as unknown as { issues: ValidationIssue[] }).issues
      expect(issues).toHaveLength(MAX_COLLECTED_ERRORS)
      expect(issues[999]?.path).toBe('[999]')
      expect(formatFeedback({ target: 'final', stage: 'schema-validate', issues })).toContain('- … and 980 more issues')
    }
  })

  it('does not count two different answers with the same first issues as a stuck loop', async () => {
    const provider = scripted([nineKeys('k9'), nineKeys('other'), '{"name": "ok"}'])
    const gate = createGate({ providers: provider, outputSchema: Closed, postDecide: [defaultStuckLoopRule, ...strictOutputRules(5)] })
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual({ name: 'ok' })
    expect(result.attempts[0]?.errors).not.toEqual(result.attempts[1]?.errors)
  })

  it('still counts two identical failures as a stuck loop', async () => {
    const provider = scripted([nineKeys('k9'), nineKeys('k9'), '{"name": "ok"}'])
    const gate = createGate({ providers: provider, outputSchema: Closed, postDecide: [defaultStuckLoopRule, ...strictOutputRules(5)] })
    const error = await gate.run(ask('x')).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isReliabilityFailFastError(error) && error.kind).toBe('schema-stuck-loop')
  })

  it('compares messages in a scope built by hand, without signatures', () => {
    const scope = { validationErrorHistory: ['a', 'a'] } as unknown as ReliabilityScope
    expect(lastNValidationErrorsMatch(scope, 2)).toBe(true)
    expect(lastNValidationErrorsMatch({ ...scope, validationErrorSignatures: ['s1', 's2'] }, 2)).toBe(false)
  })
})
