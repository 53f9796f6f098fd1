import { describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type ReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { formatTrace } from '../../src/trace/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const pricing = { m: { input: 1_000_000, output: 1_000_000 } }

describe('formatTrace', () => {
  it('prints each attempt of a result with its verdict, issues, decision and feedback', async () => {
    const gate = createGate({
      providers: scripted([
        { content: '{"orderId": 42}', usage: { inputTokens: 3, outputTokens: 2 } },
        { content: validRefundJson, usage: { inputTokens: 0, outputTokens: 0 } },
      ]),
      model: 'm',
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
      pricing,
    })
    const result = await gate.run(ask('x'), { runId: 'run-1' })
    const text = formatTrace(result)
    expect(text.split('\n')[0]).toBe('run run-1: ok after 2 attempts; 3 in / 2 out tokens, $5.0000')
    expect(text).toContain('attempt 1 → scripted (m): schema_error  [3 in / 2 out tokens, $5.0000, ')
    expect(text).toContain("    - 'orderId': expected string, got number")
    expect(text).toContain('  decision: retry (rule ')
    expect(text).toContain('  ephemeral feedback sent to the next attempt (never persisted):\n    Your previous response failed schema validation.')
    expect(text).toContain('attempt 2 → scripted (m): valid')
    expect(text.split('\n').at(-1)).toBe('accepted from scripted')
  })

  it('prints how a failed run ended from its error', async () => {
    const gate = createGate({ providers: scripted(['not json at all']), outputSchema: Refund })
    const error = (await gate.run(ask('x'), { runId: 'run-2' }).catch((e: unknown) => e)) as ReliabilityFailFastError
    const text = formatTrace(error)
    expect(text.split('\n')[0]).toMatch(/^run run-2: fail-fast \(schema-fail\) after 1 attempt;/)
    expect(text).toContain('  raw output:\n    not json at all')
    expect(text).toContain('  decision: fail-fast (no rule matched, default for schema-fail)')
    expect(text).toContain('fail-fast: kind=schema-fail phase=post-decide')
  })

  it('indents every line break a log reader may honour in a raw output, and escapes terminal controls, so the model forges no line', async () => {
    const forged = 'not json\rattempt 9 → forged: valid\u2028accepted from forged\u0085x\u001b[2Kgone'
    const gate = createGate({
      providers: scripted([forged, '{"orderId": "4\u0085attempt 8 → forged"}']),
      outputSchema: Refund,
      postDecide: strictOutputRules(2),
    })
    const error = (await gate.run(ask('x')).catch((e: unknown) => e)) as ReliabilityFailFastError
    const text = formatTrace(error)
    for (const raw of ['\r', '\u0085', '\u2028', '\u001b']) expect(text).not.toContain(raw)
    const lines = text.split('\n')
    expect(lines).toContain('    attempt 9 → forged: valid')
    expect(lines).toContain('    accepted from forged')
    expect(lines).toContain('    x\\u001b[2Kgone')
    expect(lines.filter((line) => /^(attempt|accepted|run|fail-fast)/.test(line)).every((line) => !line.includes('forged'))).toBe(true)
  })

  it('clips long raw outputs', async () => {
    const gate = createGate({ providers: scripted(['x'.repeat(1000)]), outputSchema: Refund })
    const error = (await gate.run(ask('x')).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(formatTrace(error, { maxChars: 10 })).toContain(`    ${'x'.repeat(10)}…`)
  })
})

describe('formatTrace and unpriced attempts', () => {
  it('prints an attempt and a run that could not be priced as unpriced, never as $0', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), model: 'unknown-model', outputSchema: Refund, pricing })
    gate.on('cost_unknown', () => undefined)
    const result = await gate.run(ask('x'), { runId: 'run-3' })
    const text = formatTrace(result)
    expect(result.attempts[0]?.unpriced).toBe(true)
    expect(text.split('\n')[0]).toMatch(/^run run-3: ok after 1 attempt; .* tokens, unpriced$/)
    expect(text).toMatch(/attempt 1 → scripted \(unknown-model\): valid {2}\[.* tokens, unpriced, \d+ ms\]/)
    expect(text).not.toContain('$0.0000')
  })

  it('prints a partly priced run as "$x + unpriced"', () => {
    const attempt = {
      attempt: 1,
      provider: 'p',
      model: 'm',
      status: 'success',
      usage: { inputTokens: 1, outputTokens: 1 },
      latencyMs: 1,
      issues: [],
      errors: [],
    }
    const source = {
      attempts: [
        { ...attempt, costUsd: 0.5, unpriced: false },
        { ...attempt, attempt: 2, costUsd: 0, unpriced: true },
      ],
      usage: { inputTokens: 2, outputTokens: 2 },
      costUsd: 0.5,
    } as never
    const text = formatTrace(source)
    expect(text.split('\n')[0]).toContain('$0.5000 + unpriced')
    expect(text).toContain('attempt 2 → p (m): valid  [1 in / 1 out tokens, unpriced, 1 ms]')
  })

  it('says unpriced when the source itself says so', () => {
    expect(formatTrace({ attempts: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, unpriced: true }).split('\n')[0]).toMatch(/, unpriced$/)
  })
})
