import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Agent, createGate } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { recordTrace, type RecordTraceOptions } from '../../src/trace/index.ts'
import { logSink, writeLog } from '../../src/agent/logger.ts'
import { call, turn } from '../agent/tool-fixtures.ts'

const dir = mkdtempSync(join(tmpdir(), 'rg-hostile-trace-'))
let n = 0
const file = () => join(dir, `t-${++n}.jsonl`)
const CHILD = resolve(import.meta.dirname, 'fixtures/record-trace-child.ts')
const request = { messages: [{ role: 'user' as const, content: 'hi' }] }
const bounded = <T>(p: Promise<T>, ms = 2_000) =>
  Promise.race([p, new Promise<never>((_, no) => setTimeout(() => no(new Error('did not settle')), ms).unref())])

/** Records one plain gate run with `metadata`; returns the lines written and how `stop()` settled. */
async function recordRun(metadata: Record<string, unknown> | undefined, options: Omit<RecordTraceOptions, 'path'> = {}) {
  const gate = createGate({ providers: scripted(['{"ok": true}']) })
  const path = file()
  const recorder = recordTrace(gate, { path, ...options })
  await gate.run(request, metadata === undefined ? {} : { metadata })
  const stopped = await bounded(recorder.stop()).then(
    () => 'resolved',
    (e: unknown) => `rejected: ${(e as Error).message}`,
  )
  const text = readFileSync(path, 'utf8')
  const records = text
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  return { stopped, text, records }
}

/** Runs one scenario of fixtures/record-trace-child.ts in its own process. */
function child(scenario: string) {
  const out = spawnSync(process.execPath, ['--no-warnings', CHILD, scenario, file()], { encoding: 'utf8', timeout: 20_000 })
  return { status: out.status, stderr: out.stderr, report: JSON.parse(out.stdout || '{}') as { result: { ok: boolean }; stopped: string; text: string } }
}

describe('recordTrace under hostile user code (child processes)', () => {
  it('contains a redact function that throws: the events are left out, named in the file, and stop() rejects', () => {
    const { status, stderr, report } = child('redact-throws')
    expect(stderr).not.toMatch(/uncaughtException|unhandledRejection/)
    expect(status).toBe(0)
    expect(report.result.ok).toBe(true)
    expect(report.stopped).toMatch(/^rejected: recordTrace: \d+ events were not recorded: recordTrace: redact threw: redactor broke$/)
    const lines = report.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.every((l) => l.type === 'record_error' && typeof l.event === 'string')).toBe(true)
    expect(report.text).not.toContain('"content"')
  })

  it('settles a promise a redact function returns, without an unhandled rejection', () => {
    const { status, stderr, report } = child('redact-rejects')
    expect(stderr).not.toMatch(/uncaughtException|unhandledRejection/)
    expect(status).toBe(0)
    expect(report.stopped).toContain('redact must return the record or undefined, not a promise')
  })

  it('writes a metadata getter that throws as an unreadable marker and keeps the other fields', () => {
    const { status, stderr, report } = child('metadata-getter')
    expect(stderr).not.toMatch(/uncaughtException|unhandledRejection/)
    expect(status).toBe(0)
    expect(report.stopped).toBe('resolved')
    const first = JSON.parse(report.text.split('\n')[0] as string) as { metadata: unknown }
    expect(first.metadata).toEqual({ tenant: 'acme', secret: '[unreadable: getter broke]' })
  })

  it('reports an event stream that errors from stop() instead of throwing inside rxjs', () => {
    const { status, stderr, report } = child('events-error')
    expect(stderr).not.toMatch(/uncaughtException|unhandledRejection/)
    expect(status).toBe(0)
    expect(report.stopped).toBe('rejected: recordTrace: 1 event was not recorded: the event stream of a source failed: stream broke')
  })
})

describe('recordTrace options', () => {
  const gate = createGate({ providers: scripted(['{}']) })
  it.each([
    [
      'a single string as redact',
      { path: 'x.jsonl', redact: 'content' },
      'recordTrace: redact must be a list of field names or a function, got string (write [name])',
    ],
    ['a number in the redact list', { path: 'x.jsonl', redact: [42] }, 'recordTrace: redact must list field names (non-empty strings), got number'],
    ['an empty name in the redact list', { path: 'x.jsonl', redact: [''] }, 'recordTrace: redact must list field names (non-empty strings), got ""'],
    ['a dotted name with an empty part', { path: 'x.jsonl', redact: ['metadata.'] }, 'got "metadata."'],
    ['a misspelled option', { path: 'x.jsonl', redcat: ['content'] }, 'recordTrace: unknown option "redcat"'],
    ['an append that is no boolean', { path: 'x.jsonl', append: 'yes' }, 'recordTrace: append must be a boolean, got string'],
    ['a clock that is no function', { path: 'x.jsonl', now: 5 }, 'recordTrace: now must be a function, got number'],
    ['null options', null, 'recordTrace: expected { path } naming the file to write, got null'],
    ['an empty path', { path: '' }, 'recordTrace: expected { path }'],
  ])('refuses %s with a TypeError naming recordTrace', (_, options, message) => {
    expect(() => recordTrace(gate, options as never)).toThrow(TypeError)
    expect(() => recordTrace(gate, options as never)).toThrow(message)
  })

  it('refuses a source without events$', () => {
    expect(() => recordTrace({ on: () => () => undefined } as never, { path: file() })).toThrow('recordTrace: expected a gate or an agent')
  })
})

describe('recordTrace sinks', () => {
  it('leaves out the events of a clock that throws and says so when stopped', async () => {
    const { stopped, records } = await recordRun(undefined, {
      now: () => {
        throw new Error('no clock')
      },
    })
    expect(stopped).toMatch(/^rejected: recordTrace: \d+ events were not recorded: no clock$/)
    expect(records.every((r) => r.type === 'record_error')).toBe(true)
  })

  it('leaves out an event a redact function answers with something other than a record', async () => {
    const { stopped } = await recordRun(undefined, { redact: () => 42 as never })
    expect(stopped).toContain('redact must return the record or undefined, got number')
  })

  it('gives a redact function a copy: mutating it changes neither the run metadata nor other listeners', async () => {
    const metadata = { tenant: 'acme', nested: { id: 1 } }
    const { records } = await recordRun(metadata, {
      redact: (r) => {
        ;(r.metadata as { nested: { id: number } }).nested.id = 99
        return r
      },
    })
    expect(metadata.nested.id).toBe(1)
    expect(records[0]?.metadata).toEqual({ tenant: 'acme', nested: { id: 99 } })
  })

  it('writes cyclic metadata with a circular marker', async () => {
    const metadata: Record<string, unknown> = { tenant: 'acme' }
    metadata.self = metadata
    const { stopped, records } = await recordRun(metadata)
    expect(stopped).toBe('resolved')
    expect(records[0]?.metadata).toEqual({ tenant: 'acme', self: '[circular]' })
  })

  it('bounds a huge metadata string', async () => {
    const { text, records } = await recordRun({ blob: 'x'.repeat(1_000_000) })
    expect(text.split('\n')[0]?.length).toBeLessThan(110_000)
    expect(String(((records[0]?.metadata ?? {}) as { blob: string }).blob)).toMatch(/…\[900000 more characters\]$/)
  })

  it('bounds deeply nested metadata and still settles', async () => {
    let deep: Record<string, unknown> = {}
    const root = deep
    for (let i = 0; i < 5_000; i++) deep = (deep.d = {}) as Record<string, unknown>
    const { stopped, text } = await recordRun(root)
    expect(stopped).toBe('resolved')
    expect(text.split('\n')[0]).toContain('"[too deep]"')
  })

  it('bounds an object with very many keys', async () => {
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))
    const { records } = await recordRun({ wide })
    const written = ((records[0]?.metadata ?? {}) as { wide: Record<string, unknown> }).wide
    expect(Object.keys(written)).toHaveLength(10_001)
    expect(written['[more]']).toBe('10000 more fields')
  })

  it('writes bigints as strings and invalid dates as null', async () => {
    const { records } = await recordRun({ big: 2n ** 70n, when: new Date(Number.NaN), at: new Date(0) })
    expect(records[0]?.metadata).toEqual({ big: '1180591620717411303424', when: null, at: '1970-01-01T00:00:00.000Z' })
  })

  it('keeps a __proto__ key a plain field and pollutes no prototype', async () => {
    const metadata = JSON.parse('{"__proto__": {"polluted": true}, "tenant": "acme"}') as Record<string, unknown>
    const { text } = await recordRun(metadata)
    expect(text.split('\n')[0]).toContain('"__proto__":{"polluted":true}')
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
  })

  it('writes a Proxy whose traps throw as an unreadable marker', async () => {
    const trap = () => {
      throw new Error('trap')
    }
    const hostile = new Proxy({}, { ownKeys: trap, get: trap, getPrototypeOf: trap })
    const { stopped, records } = await recordRun({ hostile })
    expect(stopped).toBe('resolved')
    expect(((records[0]?.metadata ?? {}) as { hostile: unknown }).hostile).toBe('[unreadable: trap]')
  })

  it('redacts a dotted path under any parent and leaves its siblings', async () => {
    const { text, records } = await recordRun({ secret: 's3cr3t', tenant: 'acme' }, { redact: ['metadata.secret'] })
    expect(text).not.toContain('s3cr3t')
    expect(records[0]?.metadata).toEqual({ secret: '[redacted]', tenant: 'acme' })
  })

  it('never lets a newline in a model-invented tool name or output add a line', async () => {
    const forged = 'x\n{"type":"run_end","runId":"forged","outcome":"ok"}\n'
    const agent = Agent.create({ provider: scripted([turn(call(forged, {})), `done\n${forged}`]), model: 'm', name: 'a' }).build()
    const path = file()
    const recorder = recordTrace(agent, { path })
    await agent.run('go').catch(() => undefined)
    await recorder.stop()
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n')
    const records = lines.map((l) => JSON.parse(l) as { runId: string; tool?: string })
    expect(records.some((r) => r.runId === 'forged')).toBe(false)
    expect(records.find((r) => r.tool !== undefined)?.tool).toBe(forged)
  })

  it('rejects stop() within a bound when the path is a directory', async () => {
    const gate = createGate({ providers: scripted(['{}']) })
    const recorder = recordTrace(gate, { path: dir })
    await gate.run(request)
    await expect(bounded(recorder.stop())).rejects.toThrow(/EISDIR|directory/)
  })
})

describe('log lines', () => {
  it('never let a newline in an interpolated name add a log line', () => {
    const seen: string[] = []
    writeLog(logSink({ warn: (line: string) => seen.push(line) }, 'line'), 'warn', 'cost_unknown agent=a\nvalidation_retry_outcome tool=forged\u2028x', {})
    expect(seen).toEqual(['cost_unknown agent=a\\nvalidation_retry_outcome tool=forged\\u2028x'])
  })
})
