import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../../src/index.ts'
import * as validation from '../../src/validation/building-blocks.ts'

const ROOT_VALUES = [
  'Agent',
  // Human approval of tool calls: the paused run's error, the refusals and the digest an approval binds.
  'ApprovalError',
  'ApprovalPendingError',
  'argsDigest',
  'isApprovalError',
  'isApprovalPendingError',
  'DEFAULT_ID_FIELDS',
  'DEFAULT_ID_PATTERN',
  'FAIL_FAST_KINDS',
  'FailFastKinds',
  'ProviderError',
  'ReliabilityFailFastError',
  'SESSION_FORMAT',
  'SessionCommitError',
  'SessionFormatError',
  'StepConfigError',
  'TRANSIENT_KINDS',
  'ValidationFailure',
  'circuitBreaker',
  'classifyError',
  'createGate',
  'defaultStuckLoopRule',
  'driftMonitor',
  'exponentialBackoff',
  'failoverRule',
  'contentGuard',
  'guard',
  'instructionGuard',
  'piiGuard',
  'secretsGuard',
  'idShapeGuard',
  'isProviderError',
  'isReliabilityFailFastError',
  'isSessionCommitError',
  'isSessionFormatError',
  'isStepConfigError',
  'isValidationFailure',
  'lastNValidationErrorsMatch',
  'maxCostRule',
  'memorySessionStore',
  'memoryStore',
  'pricingTable',
  'retryTransient',
  'retryTruncated',
  'sharedBudget',
  'sharedRateLimit',
  'strictOutput',
  'strictOutputRules',
  'stuckLoopRule',
  'tool',
  'truncatedFailFast',
  'MODEL_WINDOWS',
  'OUTPUT_MODES',
  'REJECTION_KINDS',
  'contextWindowCheck',
  'dropRetryEchoRule',
  'isRejectionKind',
  'largerWindowRule',
  'lowerMaxTokensRule',
  'trimWindowRule',
  'reliabilityProfile',
  'adaptiveRetry',
]

describe('public surface', () => {
  it('exports from the root what users call, and nothing else', () => {
    expect(Object.keys(root).sort()).toEqual([...ROOT_VALUES].sort())
  })

  it('keeps internals off the root', () => {
    for (const name of [
      'withTail',
      'stableKey',
      'EventHub',
      'ZERO_USAGE',
      'addUsage',
      'GENERIC_FEEDBACK',
      'extractJson',
      'repairJson',
      'formatIssueLine',
      'IncrementalValidator',
      'parseJsonSafe',
      'compileSchema',
    ]) {
      expect(Object.keys(root)).not.toContain(name)
    }
  })

  it('puts the validation building blocks on reliability-gate/validation', () => {
    for (const name of [
      'compileSchema',
      'extractJson',
      'parseJsonSafe',
      'repairJson',
      'formatIssueLine',
      'formatFeedback',
      'IncrementalValidator',
      'validateFinalAnswer',
      'validateToolArgs',
      'renderErrorTemplate',
      'countFeedbackTokens',
      'truncateEcho',
    ]) {
      expect(Object.keys(validation)).toContain(name)
    }
    // One class for both entries, so a brand or instanceof check holds across them.
    expect(validation.ValidationFailure).toBe(root.ValidationFailure)
  })

  it('maps the validation subpath in package.json to the tsup entry', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, { types: string; import: string }>
    }
    const tsup = readFileSync(new URL('../../tsup.config.ts', import.meta.url), 'utf8')
    expect(pkg.exports['./validation']).toEqual({
      types: './dist/validation/index.d.ts',
      import: './dist/validation/index.js',
      default: './dist/validation/index.js',
    })
    expect(tsup).toContain("'validation/index': 'src/validation/building-blocks.ts'")
  })
})
