import { describe, expect, it } from 'vitest'
import { exponentialBackoff, maxCostRule, retryTransient, retryTruncated, strictOutput, strictOutputRules } from '../../src/index.ts'

describe("the rules' factories' options", () => {
  it.each([
    ['strictOutput', () => strictOutput({ maxAttempt: 5 } as never), /strictOutput: unknown option "maxAttempt" \(did you mean "maxAttempts"\?\)/],
    [
      'strictOutputRules',
      () => strictOutputRules(3, { stuckafter: 3 } as never),
      /strictOutputRules: unknown option "stuckafter" \(did you mean "stuckAfter"\?\)/,
    ],
    ['retryTransient', () => retryTransient({ maxretries: 5 } as never), /retryTransient: unknown option "maxretries" \(did you mean "maxRetries"\?\)/],
    ['retryTruncated', () => retryTruncated({ maxTokenCap: 5 } as never), /retryTruncated: unknown option "maxTokenCap" \(did you mean "maxTokensCap"\?\)/],
    [
      'exponentialBackoff',
      () => exponentialBackoff({ initialMS: 5 } as never),
      /exponentialBackoff: unknown option "initialMS" \(did you mean "initialMs"\?\)/,
    ],
    ['maxCostRule', () => maxCostRule(1, { onUnPriced: 'fail' } as never), /maxCostRule: unknown option "onUnPriced" \(did you mean "onUnpriced"\?\)/],
    [
      'retryTransient backoff',
      () => retryTransient({ backoff: { factr: 3 } as never }),
      /exponentialBackoff: unknown option "factr" \(did you mean "factor"\?\)/,
    ],
    ['strictOutput backoff', () => strictOutput({ backoff: { jiter: 0 } as never }), /did you mean "jitter"/],
  ])('refuses a misspelt key of %s with a TypeError and "did you mean"', (_name, call, message) => {
    expect(call).toThrow(TypeError)
    expect(call).toThrow(message)
  })

  it.each([
    [
      'retryTransient maxRetryAfterMs',
      () => retryTransient({ maxRetryAfterMs: 2 ** 31 }),
      /retryTransient: maxRetryAfterMs must be a whole number of milliseconds/,
    ],
    ['exponentialBackoff initialMs', () => exponentialBackoff({ initialMs: 2 ** 31 }), /exponentialBackoff: initialMs/],
    ['exponentialBackoff maxMs', () => exponentialBackoff({ maxMs: 1.5 }), /exponentialBackoff: maxMs/],
    ['retryTransient backoff maxMs', () => retryTransient({ backoff: { maxMs: 2 ** 31 } }), /exponentialBackoff: maxMs/],
  ])('refuses a duration no timer can hold: %s', (_name, call, message) => {
    expect(call).toThrow(RangeError)
    expect(call).toThrow(message)
  })

  it.each([
    ['maxCostRule estimate', () => maxCostRule(1, { estimate: 'last' as never }), /maxCostRule: estimate must be one of "none", "last-attempt" or a function/],
    ['maxCostRule onExceed', () => maxCostRule(1, { onExceed: 'stop' as never }), /maxCostRule: onExceed must be one of "halt", "warn"/],
    [
      'retryTransient kinds',
      () => retryTransient({ kinds: ['rate_limit'] as never }),
      /retryTransient: kinds must be an array of error kinds \(ok, schema-fail, .*rate-limit/,
    ],
    ['strictOutput hasSchema', () => strictOutput({ hasSchema: 'yes' as never }), /strictOutput: hasSchema must be a boolean/],
    ['strictOutput errorTemplate', () => strictOutput({ errorTemplate: 42 as never }), /strictOutput: errorTemplate must be a string or a function/],
    [
      'strictOutputRules stuckAfter',
      () => strictOutputRules(3, { stuckAfter: true as never }),
      /strictOutputRules: stuckAfter must be one of false or a positive integer/,
    ],
  ])('refuses a value of the wrong kind: %s', (_name, call, message) => {
    expect(call).toThrow(message)
  })

  it('still takes every option it documents', () => {
    expect(() =>
      strictOutput({
        hasSchema: true,
        maxAttempts: 3,
        errorFeedback: true,
        retryHint: 'x',
        retryOn: ['parse'],
        schemaStrict: true,
        maxFeedbackTokens: 100,
        errorTemplate: 'x',
        stuckAfter: false,
        backoff: { initialMs: 0, maxMs: 10, factor: 2, jitter: 0, random: () => 0 },
      }),
    ).not.toThrow()
    expect(() => retryTransient({ maxRetries: 0, backoff: () => 5, kinds: ['timeout'], maxRetryAfterMs: 2 ** 31 - 1 })).not.toThrow()
    expect(() => maxCostRule(1, { estimate: () => 0.1, onExceed: 'warn', onUnpriced: 'warn' })).not.toThrow()
  })
})
