import { Type } from 'typebox'
import {
  boundJsonValue,
  compileSchema,
  extractJson,
  feedbackTemplateVars,
  fitTail,
  fitToolTail,
  formatFeedback,
  parseJsonSafe,
  repairFinalAnswer,
  repairJson,
  truncateEcho,
  ValidationFailure,
  validateFinalAnswer,
} from '../../../src/validation/building-blocks.ts'
import type { OptionsEntry } from './entry.ts'

const schema = () => compileSchema(Type.Object({ a: Type.Number() }))
const failure = () => new ValidationFailure({ stage: 'schema-validate', message: 'x', issues: [], rawOutput: '{}' })
const LIMITS = ['maxDepth', 'maxLength'] as const
const ECHO = ['maxChars', 'maxTokens'] as const

/** The validation building blocks' options objects (`reliability-gate/validation`). */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'compileSchema',
    covers: ['validation:compileSchema'],
    keys: ['registry', 'formats', 'evaluate'],
    call: (options) => compileSchema(Type.Object({ b: Type.String() }), options as never),
  },
  { name: 'extractJson', covers: ['validation:extractJson'], keys: LIMITS, numbers: LIMITS, call: (options) => extractJson('{"a": 1}', options) },
  { name: 'parseJsonSafe', covers: ['validation:parseJsonSafe'], keys: LIMITS, numbers: LIMITS, call: (options) => parseJsonSafe('{"a": 1}', options) },
  { name: 'repairJson limits', covers: ['validation:repairJson'], keys: LIMITS, numbers: LIMITS, call: (options) => repairJson("{'a': 1}", options) },
  { name: 'repairJson', keys: ['blockEnded'], call: (options) => repairJson("{'a': 1}", undefined, options) },
  {
    name: 'repairFinalAnswer',
    covers: ['validation:repairFinalAnswer'],
    keys: [...LIMITS, 'maxRepairLength', 'skip'],
    numbers: [...LIMITS, 'maxRepairLength'],
    call: (options) => repairFinalAnswer("{'a': 1}", schema(), options),
  },
  {
    name: 'validateFinalAnswer',
    covers: ['validation:validateFinalAnswer'],
    keys: [...LIMITS, 'repair', 'maxRepairLength', 'truncated', 'parsed'],
    numbers: [...LIMITS, 'maxRepairLength'],
    call: (options) => validateFinalAnswer('{"a": 1}', schema(), options),
  },
  {
    name: 'formatFeedback',
    covers: ['validation:formatFeedback'],
    keys: ['target', 'stage', 'issues', 'parseError', 'truncated', 'toolName', 'retryHint', 'previousOutput', 'maxIssues'],
    numbers: ['maxIssues'],
    call: (options) => formatFeedback({ target: 'final', stage: 'schema-validate', issues: [], ...options } as never),
  },
  {
    name: 'feedbackTemplateVars',
    covers: ['validation:feedbackTemplateVars'],
    keys: ['attempt', 'previousOutput', 'retryHint', 'maxFeedbackTokens'],
    numbers: ['attempt', 'maxFeedbackTokens'],
    call: (options) => feedbackTemplateVars(failure(), { attempt: 1, previousOutput: '{}', ...options } as never),
  },
  {
    name: 'truncateEcho',
    covers: ['validation:truncateEcho'],
    keys: ECHO,
    numbers: ECHO,
    call: (options) => truncateEcho('x', { maxChars: 10, ...options } as never),
  },
  { name: 'fitTail', covers: ['validation:fitTail'], keys: ECHO, numbers: ECHO, call: (options) => fitTail('f', 'x', { maxChars: 10, ...options } as never) },
  {
    name: 'fitToolTail',
    covers: ['validation:fitToolTail'],
    keys: ECHO,
    numbers: ECHO,
    call: (options) => fitToolTail('f', { a: 1 }, { maxChars: 10, ...options } as never),
  },
  {
    name: 'boundJsonValue',
    covers: ['validation:boundJsonValue'],
    keys: ECHO,
    numbers: ECHO,
    call: (options) => boundJsonValue({ a: 'x' }, { maxChars: 10, ...options } as never),
  },
]
