import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Agent, tool } from '../../src/index.ts'
import { GATE_EVENT_NAMES } from '../../src/events/event-names.ts'
import { scripted } from '../../src/providers/index.ts'
import { buildRuns, formatTrace, readTrace, recordTrace, serveTrace, tracePage, type ViewAttempt, type ViewRun, type ViewTool } from '../../src/trace/index.ts'
import { call, EventInput, invalidEvent, turn, validEvent } from '../agent/tool-fixtures.ts'

const lines = (...records: unknown[]) => records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')
const runsOf = (text: string): ViewRun[] => {
  const t = readTrace(text)
  return buildRuns(t.records, t.lines)
}
const start = { type: 'attempt_start', runId: 'r', ts: 1, attempt: 1, provider: 'p', model: 'm' }
const attemptOf = (run: ViewRun | undefined) => run?.timeline.find((i) => i.item === 'attempt') as ViewAttempt
/** The script elements of a page: the two data blocks and the viewer's own. */
const scripts = (html: string) => html.match(/<script\b/gi)?.length

describe('trace viewer reading a malformed trace', () => {
  it('names every skipped line with its number and why', () => {
    const { records, skipped } = readTrace(lines(start, 'not json', '[1,2]', { runId: 'r' }, { type: 'x', runId: 7 }, '', '{"type":"run_end","runId":"r"'))
    expect(records).toHaveLength(1)
    expect(skipped.map((s) => s.line)).toEqual([2, 3, 4, 5, 7])
    expect(skipped.map((s) => s.reason.replace(/ \(.*$/, ''))).toEqual([
      'not JSON',
      'not a JSON object',
      'no "type"',
      '"runId" is number, expected a string',
      'not JSON',
    ])
  })

  it('lists the skipped lines on the page', () => {
    const html = tracePage(lines(start, 'garbage'), 't')
    expect(html).toContain('"line":2,"reason":"not JSON')
  })

  it('shows a cost of the wrong type as invalid instead of crashing', () => {
    const [run] = runsOf(lines(start, { type: 'cost_tick', runId: 'r', ts: 2, attempt: 1, attemptCostUsd: '0.5' }))
    expect(run?.costUsd).toBe(0)
    expect(attemptOf(run).invalid).toEqual(['line 2 (cost_tick): attemptCostUsd is string, expected a finite number'])
  })

  it.each([
    ['usage that is a string', { type: 'attempt_end', runId: 'r', errorKind: 'ok', usage: 'lots' }, 'usage is string, expected an object'],
    ['token counts that are strings', { type: 'attempt_end', runId: 'r', errorKind: 'ok', usage: { inputTokens: '5' } }, 'usage.inputTokens is string'],
    [
      'tool calls that are no list',
      { type: 'attempt_end', runId: 'r', errorKind: 'ok', response: { toolCalls: 'x' } },
      'response.toolCalls is string, expected a list',
    ],
    ['an error kind that is a number', { type: 'attempt_end', runId: 'r', errorKind: 3 }, 'errorKind is number, expected a string'],
    ['repairs that are no list', { type: 'repaired', runId: 'r', repairs: 'all' }, 'repairs is string, expected a list'],
    ['a retry tail that is no list', { type: 'retry', runId: 'r', tail: {}, fromProvider: 'p', toProvider: 'p' }, 'tail is object, expected a list'],
    ['a decision label that is an object', { type: 'decision', runId: 'r', phase: 'post-decide', decision: 'retry', kind: 'k', label: {} }, 'label is object'],
  ])('reads %s as absent and lists it as invalid on the attempt', (_, record, problem) => {
    const page = tracePage(lines(start, record), 't')
    const [run] = runsOf(lines(start, record))
    expect(page.startsWith('<!doctype html>')).toBe(true)
    expect(attemptOf(run).invalid.join('\n')).toContain(problem)
  })

  it('lists issues that are no list on the validation failure', () => {
    const [run] = runsOf(
      lines({ type: 'run_start', runId: 'r' }, start, { type: 'validation_failed', runId: 'r', stage: 'schema-validate', issues: 'bad', message: 'm' }),
    )
    expect(attemptOf(run).failures[0]).toEqual({ stage: 'schema-validate', message: 'm', issues: [] })
    expect(attemptOf(run).invalid).toEqual(['line 3 (validation_failed): issues is string, expected a list'])
  })

  it('notes a field of the wrong type that belongs to no attempt', () => {
    const [run] = runsOf(lines({ type: 'agent_run_start', runId: 'r', agent: 42 }))
    expect(run?.name).toBeUndefined()
    expect(run?.timeline).toEqual([
      { item: 'note', type: 'invalid', text: 'invalid field, read as absent: line 1 (agent_run_start): agent is number, expected a string' },
    ])
  })

  it('reads metadata that is no object as absent', () => {
    const [run] = runsOf(lines({ type: 'run_start', runId: 'r', metadata: 'tenant=acme' }))
    expect(run?.metadata).toBeUndefined()
  })

  it('keeps a run named __proto__ a run, polluting nothing', () => {
    const runs = runsOf(lines({ type: 'run_start', runId: '__proto__', ts: 1 }, { type: 'run_end', runId: '__proto__', outcome: 'ok', ts: 2 }))
    expect(runs.map((r) => [r.runId, r.outcome])).toEqual([['__proto__', 'ok']])
    expect(({} as { outcome?: string }).outcome).toBeUndefined()
  })

  it('shows an event recordTrace could not record as a note', () => {
    const [run] = runsOf(lines({ type: 'record_error', runId: 'r', event: 'attempt_end', error: 'redact threw: boom' }))
    expect(run?.timeline).toEqual([{ item: 'note', type: 'record_error', text: 'an event (attempt_end) was not recorded: redact threw: boom' }])
  })

  it('bounds a huge raw output on the page', () => {
    const html = tracePage(lines(start, { type: 'attempt_end', runId: 'r', errorKind: 'ok', response: { content: 'x'.repeat(2_000_000) } }), 't')
    expect(html.length).toBeLessThan(200_000)
    expect(html).toContain('…[1900000 more characters]')
  })

  it('never crashes and never adds a script element, whatever the records hold (property)', () => {
    const record = fc.record({
      type: fc.constantFrom(...GATE_EVENT_NAMES, 'record_error'),
      runId: fc.constantFrom('r', '__proto__', '</script>'),
      ts: fc.anything(),
      attempt: fc.anything(),
      usage: fc.anything(),
      response: fc.anything(),
      tail: fc.anything(),
      issues: fc.anything(),
      tool: fc.oneof(fc.string(), fc.constant('</script><script>alert(1)</script>')),
      metadata: fc.anything(),
      attemptCostUsd: fc.anything(),
      errorKind: fc.anything(),
    })
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), (records) => {
        const html = tracePage(records.map((r) => JSON.stringify(r) ?? '').join('\n'), 't')
        expect(scripts(html)).toBe(3)
      }),
      { numRuns: 200 },
    )
  })
})

describe('trace viewer page under hostile content', () => {
  it.each([
    ['a model-invented tool name', { type: 'tool_start', runId: 'r', tool: '</script><script>alert(1)</script>', callId: 'c', args: {} }],
    ['a model name', { ...start, model: '</SCRIPT ><img src=x onerror=alert(1)>' }],
    ['a metadata key', { type: 'run_start', runId: 'r', metadata: { '</script><script>alert(1)//': 1 } }],
    ['an HTML comment opener', { ...start, provider: '<!--<script>' }],
    ['line separators', { ...start, provider: 'a\u2028b\u2029c' }],
  ])('keeps %s inside the data block', (_, record) => {
    const html = tracePage(lines(record), 't')
    expect(scripts(html)).toBe(3)
    expect(html).not.toMatch(/<\/script><script>alert|<img src=x|<!--<script>|\u2028/i)
  })

  it('escapes a file name holding HTML in the title', () => {
    const html = tracePage('', '<img src=x onerror=alert(1)>')
    expect(html).not.toContain('<img')
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;')
  })

  it('has expand-all and collapse-all buttons', () => {
    const html = tracePage('', 't')
    expect(html).toContain('data-testid="expand-all"')
    expect(html).toContain('data-testid="collapse-all"')
  })
})

describe('trace viewer: unpriced attempts', () => {
  it('marks an attempt with a cost_unknown event unpriced, and says so in the run and page', () => {
    const text = lines(
      start,
      { type: 'cost_unknown', runId: 'r', attempt: 1, provider: 'p', source: 'meter', reason: 'no price' },
      { type: 'cost_tick', runId: 'r', attempt: 1, attemptCostUsd: 0 },
    )
    const [run] = runsOf(text)
    expect(attemptOf(run).unpriced).toBe(true)
    expect(run?.unpricedAttempts).toBe(1)
    expect(tracePage(text, 't')).toContain('0 failed · unpriced · ')
  })

  it('prints a priced part with "+ unpriced" when only some attempts were priced', () => {
    const text = lines(
      start,
      { type: 'cost_tick', runId: 'r', attempt: 1, attemptCostUsd: 0.5 },
      { ...start, attempt: 2 },
      { type: 'cost_unknown', runId: 'r', attempt: 2 },
    )
    expect(tracePage(text, 't')).toContain('$0.500000 + unpriced')
  })

  it('prints a priced run as dollars only', () => {
    expect(tracePage(lines(start, { type: 'cost_tick', runId: 'r', attemptCostUsd: 0.25 }), 't')).toContain('0 failed · $0.250000 · ')
  })
})

describe('trace viewer: tool-argument retries', () => {
  it('draws each argument retry as a retry of its tool, with the feedback sent and whether its arguments passed', async () => {
    const eventTool = tool({ name: 'create_event', description: 'Creates a calendar event', input: EventInput, execute: async () => 'ok' })
    // Two different invalid calls: the same arguments twice in a row would stop the run as a stuck loop.
    const steps = [
      turn(call('create_event', invalidEvent)),
      turn(call('create_event', { ...invalidEvent, at: 'next week' })),
      turn(call('create_event', validEvent)),
      'Booked.',
    ]
    const agent = Agent.create({ provider: scripted(steps), model: 'm', name: 'mailbot' })
      .tool(eventTool)
      .build()
    const path = join(mkdtempSync(join(tmpdir(), 'rg-viewer-retry-')), 't.jsonl')
    const recorder = recordTrace(agent, { path })
    await agent.run('book')
    await recorder.stop()
    const [run] = runsOf(readFileSync(path, 'utf8'))
    const retries = run?.timeline.filter((i): i is ViewAttempt => i.item === 'attempt' && i.toolRetry !== undefined) ?? []
    expect(retries.map((a) => a.toolRetry)).toEqual([
      { tool: 'create_event', retry: 1, verdict: 'invalid' },
      { tool: 'create_event', retry: 2, verdict: 'valid' },
    ])
    expect(retries[0]?.sent?.map((m) => m.role)).toEqual(['assistant', 'tool'])
    expect(retries[0]?.sent?.[1]?.content).toContain("'at': expected ISO datetime")
    expect(retries[0]?.failures[0]?.issues.map((i) => i.path)).toEqual(['at'])
    expect((run?.timeline.find((i) => i.item === 'tool') as ViewTool | undefined)?.retryCount).toBe(2)
  })
})

describe('serveTrace options', () => {
  it.each([
    ['an empty path', '', {}, 'serveTrace: path must be a non-empty string'],
    ['a port out of range', 'x.jsonl', { port: 70_000 }, 'serveTrace: port must be an integer from 0 to 65535, got 70000'],
    ['a port that is a string', 'x.jsonl', { port: '80' }, 'serveTrace: port must be an integer from 0 to 65535, got "80"'],
    ['a misspelled option', 'x.jsonl', { prot: 80 }, 'serveTrace: unknown option "prot"'],
    ['an empty host', 'x.jsonl', { host: '' }, 'serveTrace: host must be a non-empty string'],
  ])('refuses %s', async (_, path, options, message) => {
    await expect(serveTrace(path, options as never)).rejects.toThrow(message)
  })
})

describe('formatTrace given what it cannot print', () => {
  const ok = { attempts: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 }
  it.each([
    ['no source', undefined, 'formatTrace: expected a gate result, an agent run result or a ReliabilityFailFastError (with attempts), got undefined'],
    ['attempts that are no list', { ...ok, attempts: 'none' }, 'formatTrace: expected a gate result'],
  ])('refuses %s with a TypeError', (_, source, message) => {
    expect(() => formatTrace(source as never)).toThrow(TypeError)
    expect(() => formatTrace(source as never)).toThrow(message)
  })

  it.each([
    ['a misspelled option', { maxchars: 10 }, 'formatTrace: unknown option "maxchars"'],
    ['a maxChars of 0', { maxChars: 0 }, 'formatTrace: maxChars must be a positive integer, got 0'],
    ['a maxChars that is a string', { maxChars: '10' }, 'formatTrace: maxChars must be a positive integer, got "10"'],
  ])('refuses %s', (_, options, message) => {
    expect(() => formatTrace(ok, options as never)).toThrow(message)
  })

  it('prints fields of the wrong type as unknown instead of crashing', () => {
    const attempt = { attempt: 1, provider: 'p', status: 'success', usage: { inputTokens: 'many' }, costUsd: '0.5', latencyMs: null, issues: 'x', errors: 'y' }
    const text = formatTrace({ ...ok, costUsd: '1' as never, attempts: [attempt as never, null as never] })
    expect(text).toContain('attempt 1 → p: valid  [? in / ? out tokens, cost unknown, ? ms]')
    expect(text).toContain('attempt ? → (not an attempt record: null)')
  })

  it('never lets a newline in a provider, model or kind start a line of its own', () => {
    const attempt = {
      attempt: 1,
      provider: 'p\nattempt 9 → forged: valid',
      model: 'm\r\n',
      status: 'success',
      usage: ok.usage,
      costUsd: 0,
      latencyMs: 1,
      issues: [],
      errors: [],
    }
    const text = formatTrace({ ...ok, kind: 'k\nforged', reason: 'r', attempts: [attempt as never] })
    expect(text.split('\n').filter((l) => l.startsWith('attempt '))).toHaveLength(1)
    expect(text).toContain('p\\nattempt 9 → forged: valid (m\\r\\n)')
  })
})
