import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Agent, createGate, strictOutputRules, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { buildRuns, parseTrace, recordTrace, tracePage, type ViewAttempt, type ViewTool } from '../../src/trace/index.ts'
import { toTraceRecord } from '../../src/trace/trace-record.ts'
import { main } from '../../src/trace/viewer/cli-main.ts'
import { call, EventInput, invalidEvent, turn, validEvent } from '../agent/tool-fixtures.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { RETRY_THEN_OK_EVENTS } from '../support/event-order.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-trace-'))
let n = 0
const file = () => join(dir, `trace-${++n}.jsonl`)
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)

function retryingGate() {
  return createGate({
    providers: scripted(['{"orderId": 42}', validRefundJson], { name: 'openai' }),
    model: 'gpt-x',
    outputSchema: Refund,
    postDecide: strictOutputRules(3),
  })
}

describe('recordTrace', () => {
  it('writes one JSON line per event, each with its runId and a time', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path, now: () => 1234 })
    const result = await gate.run(ask('x'))
    await recorder.stop()
    const records = lines(path)
    expect(records.map((r) => r.type)).toEqual(RETRY_THEN_OK_EVENTS)
    expect(records.every((r) => r.runId === result.runId && r.ts === 1234)).toBe(true)
  })

  it('reduces requests to their ephemeral tail and responses to their content', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path })
    await gate.run(ask('x'))
    await recorder.stop()
    const [first, second] = lines(path).filter((r) => r.type === 'attempt_start')
    expect(first?.request).toEqual({ model: 'gpt-x', messages: 1, tail: [] })
    expect((second?.request as { tail: { role: string; ephemeral: boolean }[] } | undefined)?.tail.map((m) => [m.role, m.ephemeral])).toEqual([
      ['assistant', true],
      ['user', true],
    ])
    expect(lines(path).find((r) => r.type === 'attempt_end')?.response).toEqual({ content: '{"orderId": 42}', toolCalls: [], stopReason: 'end' })
  })

  it('replaces redacted fields at any depth', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path, redact: ['rawOutput', 'content'] })
    await gate.run(ask('x'), { metadata: { tenant: 'acme' } })
    await recorder.stop()
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain('orderId": 42')
    expect(lines(path).find((r) => r.type === 'validation_failed')?.rawOutput).toBe('[redacted]')
  })

  it('replaces a redacted field of an error nested in what an event carries', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path, redact: ['message'] })
    await gate.run(ask('x'), { metadata: { tenant: 'acme', lastFailure: new Error('card 4111-1111-1111-1111 declined') } })
    await recorder.stop()
    expect(readFileSync(path, 'utf8')).not.toContain('4111')
    expect(lines(path)[0]?.metadata).toEqual({ tenant: 'acme', lastFailure: { name: 'Error', message: '[redacted]' } })
  })

  it('leaves out the events a redact function drops, and writes what it returns', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path, redact: (r) => (r.type === 'cost_tick' ? undefined : { ...r, metadata: undefined }) })
    await gate.run(ask('x'), { metadata: { secret: 's3cr3t' } })
    await recorder.stop()
    expect(lines(path).some((r) => r.type === 'cost_tick')).toBe(false)
    expect(readFileSync(path, 'utf8')).not.toContain('s3cr3t')
  })

  it('records a thrown value that has no string form', () => {
    // What a rule's `when` may throw: an object without a prototype, which String() cannot convert.
    const error: unknown = Object.create(null)
    const record = toTraceRecord({ type: 'rule_error', runId: 'run_1', attempt: 1, kind: 'mine', where: 'when', error }, 5)
    expect(record.error).toEqual({ name: 'object', message: 'an unreadable object' })
  })

  it('records several sources into one file', async () => {
    const a = retryingGate()
    const b = retryingGate()
    const path = file()
    const recorder = recordTrace([a, b], { path })
    const [ra, rb] = await Promise.all([a.run(ask('a')), b.run(ask('b'))])
    await recorder.stop()
    expect(new Set(lines(path).map((r) => r.runId))).toEqual(new Set([ra.runId, rb.runId]))
  })

  it('stops writing once stopped', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path })
    await recorder.stop()
    await gate.run(ask('x'))
    expect(readFileSync(path, 'utf8')).toBe('')
  })
})

describe('trace viewer model', () => {
  it('builds an agent run as a timeline of attempts and tool calls', async () => {
    const eventTool = tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => 'ok' })
    const agent = Agent.create({
      provider: scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.']),
      model: 'm',
      name: 'mailbot',
    })
      .tool(eventTool)
      .build()
    const path = file()
    const recorder = recordTrace(agent, { path })
    await agent.run('book', { metadata: { tenant: 'acme' } })
    await recorder.stop()
    const [run] = buildRuns(parseTrace(readFileSync(path, 'utf8')))
    expect(run).toMatchObject({ kind: 'agent', name: 'mailbot', outcome: 'ok', metadata: { tenant: 'acme' }, models: ['m'] })
    expect(run?.timeline.map((i) => i.item)).toEqual(['attempt', 'tool', 'attempt', 'attempt'])
    const toolCall = run?.timeline[1] as ViewTool
    expect(toolCall).toMatchObject({ tool: 'create_event', status: 'ok', outcome: 'success', retryCount: 1 })
    expect(toolCall.failures[0]?.issues.map((i) => i.path)).toEqual(['at'])
    // The rejected call keeps its own arguments and issues; the attempt that made it is marked rejected.
    expect(toolCall.args).toEqual(validEvent)
    expect(toolCall.rejected).toEqual([{ args: invalidEvent, failure: expect.objectContaining({ stage: 'tool-args' }) }])
    const [made, retry] = [run?.timeline[0] as ViewAttempt, run?.timeline[2] as ViewAttempt]
    expect(made.argsRejected).toBe('create_event')
    expect(made.failures.flatMap((f) => f.issues.map((i) => i.path))).toEqual(['at'])
    expect(retry.toolRetry?.verdict).toBe('valid')
    expect(retry.failures).toEqual([])
  })

  it('keeps each rejected retry with the arguments it gave', async () => {
    const eventTool = tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => 'ok' })
    const second = { ...validEvent, attendees: 'four' }
    const agent = Agent.create({
      provider: scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', second)), turn(call('create_event', validEvent)), 'Booked.']),
      name: 'mailbot',
    })
      .tool(eventTool)
      .build()
    const path = file()
    const recorder = recordTrace(agent, { path })
    await agent.run('book')
    await recorder.stop()
    const [run] = buildRuns(parseTrace(readFileSync(path, 'utf8')))
    const toolCall = run?.timeline.find((i) => i.item === 'tool') as ViewTool
    expect(toolCall.rejected.map((r) => [r.args, r.failure.issues.map((i) => i.path)])).toEqual([
      [invalidEvent, ['at']],
      [second, ['attendees']],
    ])
    expect(toolCall.args).toEqual(validEvent)
    const retries = run?.timeline.filter((i): i is ViewAttempt => i.item === 'attempt' && i.toolRetry !== undefined)
    expect(retries?.map((r) => r.toolRetry?.verdict)).toEqual(['invalid', 'valid'])
    expect((run?.timeline[0] as ViewAttempt | undefined)?.argsRejected).toBe('create_event')
  })

  it('keeps the raw output, issues, deciding rule and ephemeral tail of a failed attempt', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path })
    await gate.run(ask('x'))
    await recorder.stop()
    const [run] = buildRuns(parseTrace(readFileSync(path, 'utf8')))
    const failed = run?.timeline[0] as ViewAttempt
    expect(failed).toMatchObject({
      errorKind: 'schema-fail',
      rawOutput: '{"orderId": 42}',
      provider: 'openai',
      model: 'gpt-x',
      decision: { decision: 'retry', matched: true },
    })
    expect(failed.failures[0]?.issues.map((i) => i.path)).toContain('orderId')
    expect(failed.tail?.map((m) => m.role)).toEqual(['assistant', 'user'])
    expect(run?.kinds).toContain('schema-fail')
  })

  it('skips lines that are not events', () => {
    expect(parseTrace('{"type":"run_start","runId":"r","ts":1}\nnot json\n{"no":"type"}\n{"type":"run_end","runId":"r"')).toHaveLength(1)
  })

  it('never lets a model output close the page’s data script', () => {
    const html = tracePage(
      `{"type":"attempt_start","runId":"r","ts":1,"attempt":1,"provider":"p"}\n{"type":"attempt_end","runId":"r","ts":2,"errorKind":"ok","response":{"content":"</script><script>alert(1)</script>"}}`,
      't',
    )
    expect(html).not.toContain('</script><script>alert(1)')
  })

  it('writes a self-contained page with view --html', async () => {
    const gate = retryingGate()
    const path = file()
    const recorder = recordTrace(gate, { path })
    await gate.run(ask('x'))
    await recorder.stop()
    const out = join(dir, 'out.html')
    writeFileSync(out, '')
    expect(await main(['view', path, '--html', out])).toBe(0)
    const html = readFileSync(out, 'utf8')
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=/)
  })
})
