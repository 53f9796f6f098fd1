import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseFlags } from '../../src/trace/cli-flags.ts'
import { parseCliArgs } from '../../src/trace/viewer/cli-args.ts'

const SPEC = { valued: ['--config', '--html'], switches: ['--json'] }

describe('parseFlags', () => {
  it('reads one file, valued flags in both spellings and switches', () => {
    const parsed = parseFlags(['t.jsonl', '--config', 'c.mjs', '--html=o.html', '--json'], SPEC)
    expect(parsed).toEqual({
      ok: true,
      file: 't.jsonl',
      flags: new Map([
        ['--config', 'c.mjs'],
        ['--html', 'o.html'],
        ['--json', ''],
      ]),
    })
  })

  it.each([
    [['--confg', 'x'], 'unknown option "--confg" (did you mean "--config"?); the flags are --config, --html, --json'],
    [['--json=1'], '--json takes no value'],
    [['--config'], '--config needs a value'],
    [['--config', '--json'], '--config needs a value'],
    [['--config', 'a', '--config', 'b'], '--config is given twice'],
    [['a.jsonl', 'b.jsonl'], 'unexpected argument "b.jsonl" (one trace file at a time)'],
  ])('refuses %j', (args, problem) => {
    expect(parseFlags(args, SPEC)).toEqual({ ok: false, problem })
  })

  it('reads a negative number as a value, for its range check to refuse', () => {
    expect(parseFlags(['--config', '-0.5'], SPEC)).toMatchObject({ ok: true, flags: new Map([['--config', '-0.5']]) })
  })

  it('gives the view command the same did-you-mean as replay', () => {
    expect(parseCliArgs(['view', 't.jsonl', '--prot', '80'])).toEqual({
      kind: 'usage',
      problem: 'unknown option "--prot" (did you mean "--port"?); the flags are --html, --port',
    })
  })

  it.each([
    ['vew', 'unknown command "vew" (did you mean "view"?); the commands are view, replay'],
    ['repaly', 'unknown command "repaly" (did you mean "replay"?); the commands are view, replay'],
    ['--version', 'unknown command "--version"; the commands are view, replay'],
  ])('refuses the unknown command %j with the command it is closest to', (command, problem) => {
    expect(parseCliArgs([command, 't.jsonl'])).toEqual({ kind: 'usage', problem })
  })

  it('names a huge unknown command in one bounded line', () => {
    const parsed = parseCliArgs([`${'x'.repeat(100_000)}\nforged`])
    expect(parsed.kind).toBe('usage')
    const problem = (parsed as { problem: string }).problem
    expect(problem.length).toBeLessThan(200)
    expect(problem).not.toContain('\n')
  })

  it('never throws, and answers only known flags with a value each', () => {
    const arg = fc.oneof(fc.constantFrom('--config', '--html', '--json', '--x', '-', '-1', '=', '--config='), fc.string())
    fc.assert(
      fc.property(fc.array(arg, { maxLength: 8 }), (args) => {
        const parsed = parseFlags(args, SPEC)
        if (!parsed.ok) {
          expect(parsed.problem).toMatch(/\S/)
          return
        }
        for (const [name, value] of parsed.flags) {
          expect([...SPEC.valued, ...SPEC.switches]).toContain(name)
          if (SPEC.valued.includes(name)) expect(value).not.toBe('')
        }
        if (parsed.file !== undefined) expect(args).toContain(parsed.file)
      }),
    )
  })
})
