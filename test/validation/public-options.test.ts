import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import {
  boundJsonValue,
  compileSchema,
  extractJson,
  feedbackTemplateVars,
  fitTail,
  formatFeedback,
  parseJsonSafe,
  repairJson,
  truncateEcho,
  ValidationFailure,
  validateFinalAnswer,
} from '../../src/validation/building-blocks.ts'

const SRC = resolve(import.meta.dirname, '../../src')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  )
}

describe('reliability-gate/validation options', () => {
  it.each([
    ['extractJson', () => extractJson('{}', { maxdepth: 3 } as never), 'did you mean "maxDepth"'],
    ['parseJsonSafe', () => parseJsonSafe('{}', { MaxLength: 3 } as never), 'did you mean "maxLength"'],
    ['repairJson', () => repairJson('{}', undefined, { blockended: true } as never), 'did you mean "blockEnded"'],
    ['validateFinalAnswer', () => validateFinalAnswer('{}', compileSchema(Type.Object({})), { repiar: true } as never), 'did you mean "repair"'],
    ['compileSchema', () => compileSchema(Type.Object({}), { Formats: 'annotate' } as never), 'did you mean "formats"'],
    ['formatFeedback', () => formatFeedback({ target: 'final', stage: 'json-parse', issues: [], retryhint: 'x' } as never), 'did you mean "retryHint"'],
  ])('%s refuses a misspelt option with a TypeError naming the right one', (_name, call, message) => {
    expect(call).toThrow(TypeError)
    expect(call).toThrow(message)
  })

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, 2.5, '100'])('refuses a limit of %s, naming it', (value) => {
    expect(() => truncateEcho('x', { maxChars: value } as never)).toThrow(/truncateEcho: maxChars must be/)
    expect(() => fitTail('f', 'x', { maxChars: 10, maxTokens: value } as never)).toThrow(/fitTail: maxTokens must be/)
    expect(() => extractJson('{}', { maxDepth: value } as never)).toThrow(/extractJson: maxDepth must be/)
  })

  it('refuses a missing required option with a TypeError naming it', () => {
    expect(() => formatFeedback({ stage: 'json-parse', issues: [] } as never)).toThrow('formatFeedback: target is required')
    expect(() => boundJsonValue({}, {} as never)).toThrow('boundJsonValue: maxChars is required')
    expect(() => truncateEcho('x', undefined as never)).toThrow(TypeError)
    const failure = new ValidationFailure({ stage: 'schema-validate', message: 'x', issues: [], rawOutput: '' })
    expect(() => feedbackTemplateVars(failure, { attempt: 1 } as never)).toThrow('feedbackTemplateVars: previousOutput is required')
  })

  it('still accepts what it always did', () => {
    expect(extractJson('say {"a": 1}')).toMatchObject({ ok: true, value: { a: 1 } })
    expect(truncateEcho('abc', { maxChars: 10 })).toBe('abc')
    expect(formatFeedback({ target: 'final', stage: 'json-parse', issues: [], parseError: 'bad' })).toContain('bad')
  })

  it('checks options only at the public entry: the gate and the agent call the blocks unchecked', () => {
    const importers = sources(SRC).filter((file) => {
      if (file.endsWith('building-blocks.ts')) return false
      return /from '[^']*(checked-entries|building-blocks)(\.ts)?'/.test(readFileSync(file, 'utf8'))
    })
    expect(importers.map((file) => file.slice(SRC.length))).toEqual([])
  })
})
