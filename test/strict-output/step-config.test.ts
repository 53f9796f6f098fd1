import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, isStepConfigError, strictOutput, type ReliabilityFailFastError, type StepConfigError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const Message = Type.Object({ message: Type.String() }, { additionalProperties: false })
const request = { system: 'Answer in JSON.', messages: [{ role: 'user' as const, content: 'Say hi.' }] }

describe('strictOutput.fromStepConfig', () => {
  it("reads pyconveyor's snake_case keys", () => {
    const config = strictOutput.fromStepConfig({
      max_attempts: 2,
      error_feedback: true,
      retry_hint: 'Only JSON.',
      retry_on: ['parse', 'schema'],
      schema_strict: true,
      max_feedback_tokens: 100,
      error_template: 'Fix: {% for e in errors %}{{ e.loc_str }} {% endfor %}',
    })
    expect(config).toMatchObject({
      maxAttempts: 2,
      errorFeedback: true,
      retryHint: 'Only JSON.',
      maxFeedbackTokens: 100,
      errorTemplate: 'Fix: {% for e in errors %}{{ e.loc_str }} {% endfor %}',
    })
    expect(config.postDecide?.map((r) => r.kind)).toEqual(['parse-retry', 'schema-retry', 'schema-retry-exhausted'])
  })

  it('rejects unknown keys and wrong types, naming each bad key and what was expected', () => {
    let error: unknown
    try {
      strictOutput.fromStepConfig({ max_attempts: '3', retry_on: ['parse', 'network'], maxAttempts: 3 })
    } catch (e) {
      error = e
    }
    expect(isStepConfigError(error)).toBe(true)
    const message = (error as Error).message
    expect(message).toContain('- \'max_attempts\': expected a positive integer, got string "3"')
    expect(message).toContain("- 'retry_on': expected a list of 'parse', 'schema', 'timeout', 'http_error', 'rate_limit', got list")
    expect(message).toContain("- 'maxAttempts': expected no such key")
  })

  it('treats null as not set', () => {
    expect(strictOutput.fromStepConfig({ max_attempts: null }).maxAttempts).toBe(3)
  })

  it("treats an empty error_template as not set, using the built-in feedback as pyconveyor's `if error_template_path:` does", () => {
    const config = strictOutput.fromStepConfig({ error_template: '', max_attempts: 2 })
    expect(config.errorTemplate).toBeUndefined()
    expect(config.maxAttempts).toBe(2)
    expect('errorTemplate' in strictOutput.fromStepConfig({ error_template: '' }, { baseDir: '/nowhere' })).toBe(false)
  })

  it('checks its own options: a misspelt baseDir, a strictOutput key slipped in, an empty baseDir or no object are refused, never read as a default', () => {
    // package.json sits in the working directory: a misspelt baseDir must not fall back to it.
    expect(() => strictOutput.fromStepConfig({ error_template: 'package.json' }, { basedir: '/nowhere' } as never)).toThrow(
      /^strictOutput\.fromStepConfig: unknown option "basedir" \(did you mean "baseDir"\?\)/,
    )
    // A step's max_attempts is not overridden behind the step config's back.
    expect(() => strictOutput.fromStepConfig({ max_attempts: 3 }, { maxAttempts: 10 } as never)).toThrow(TypeError)
    expect(() => strictOutput.fromStepConfig({ error_template: 'package.json' }, { baseDir: '' })).toThrow(/baseDir must be a non-empty string/)
    for (const bad of [null, 5, 'dir'])
      expect(() => strictOutput.fromStepConfig({}, bad as never)).toThrow(/^strictOutput\.fromStepConfig: options must be an object/)
    expect(strictOutput.fromStepConfig({ max_attempts: 2 }, { hasSchema: true }).maxAttempts).toBe(2)
  })
})

describe('strictOutput.fromStepConfig validation', () => {
  it('names every key of the wrong type with what was expected', () => {
    let error: StepConfigError | undefined
    try {
      strictOutput.fromStepConfig({
        max_attempts: 0,
        error_feedback: 'yes',
        retry_hint: 3,
        retry_on: 'parse',
        schema_strict: 1,
        max_feedback_tokens: 2.5,
        error_template: ['x'],
      })
    } catch (e) {
      if (isStepConfigError(e)) error = e
    }
    expect(error?.problems.map((p) => [p.key, p.expected])).toEqual([
      ['max_attempts', 'a positive integer'],
      ['error_feedback', 'a boolean'],
      ['retry_hint', 'a string'],
      ['retry_on', "a list of 'parse', 'schema', 'timeout', 'http_error', 'rate_limit'"],
      ['schema_strict', 'a boolean'],
      ['max_feedback_tokens', 'a positive integer'],
      ['error_template', 'a string (a Jinja template or the path of a template file)'],
    ])
    for (const key of ['max_attempts', 'error_feedback', 'retry_hint', 'retry_on', 'schema_strict', 'max_feedback_tokens', 'error_template']) {
      expect(error?.message).toContain(`- '${key}': expected`)
    }
  })

  it('names a bad list or an unreadable config in a StepConfigError, even when JSON cannot write the value', () => {
    const cycle: unknown[] = ['parse']
    cycle.push(cycle)
    const cases: [unknown, RegExp][] = [
      [{ retry_on: [1n] }, /- 'retry_on': expected a list of .*, got list \[1n\]/],
      [{ retry_on: cycle }, /- 'retry_on': expected a list of .*, got list \["parse", an array\]/],
      [{ retyr_on: cycle }, /- 'retyr_on': expected no such key/],
      [
        {
          retry_on: [
            {
              toJSON: () => {
                throw new Error('no JSON')
              },
            },
          ],
        },
        /- 'retry_on': expected a list of .*, got list \[object\]/,
      ],
      [{ max_attempts: () => 1 }, /- 'max_attempts': expected a positive integer, got a function$/],
      [
        new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error('keys trap')
            },
          },
        ),
        /- '\(root\)': expected an object of step keys that can be read, got one that threw keys trap/,
      ],
      [
        {
          get max_attempts(): number {
            throw new Error('getter')
          },
        },
        /- '\(root\)': .*threw getter/,
      ],
    ]
    for (const [config, message] of cases) {
      let error: unknown
      try {
        strictOutput.fromStepConfig(config)
      } catch (e) {
        error = e
      }
      expect(isStepConfigError(error)).toBe(true)
      expect((error as Error).message).toMatch(message)
    }
  })

  it('rejects a config that is not an object', () => {
    expect(() => strictOutput.fromStepConfig([['max_attempts', 2]])).toThrow(/expected an object of step keys/)
  })

  it('treats inherited names such as toString as unknown keys', () => {
    expect(() => strictOutput.fromStepConfig(JSON.parse('{"toString": 1, "__proto__": {"max_attempts": 2}}'))).toThrow(
      /'toString': expected no such key[\s\S]*'__proto__': expected no such key/,
    )
  })

  it('turns the keys into a config that really acts', async () => {
    const provider = scripted(['{"message": 1}', '{"message": 2}', '{"message": "hi"}'])
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput.fromStepConfig({ max_attempts: 2, retry_hint: 'Strings only.' }) })
    const error = (await gate.run(request).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(error.kind).toBe('schema-retry-exhausted')
    expect(provider.calls).toBe(2)
    expect(error.attempts[0]?.feedbackSent?.endsWith('\nStrings only.')).toBe(true)
  })
})
