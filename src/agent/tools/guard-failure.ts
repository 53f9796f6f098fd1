import { jsonTextOf } from '../../model/json-text-of.ts'
import { renderPath } from '../../validation/schema/path.ts'
import { ValidationFailure } from '../../validation/validation-failure.ts'
import type { GuardRejection } from './run-guards.ts'

/** A guard's rejection as a validation failure of the arguments (stage `tool-args`), for `validation_failed`. */
export function guardFailure(rejection: GuardRejection, args: unknown): ValidationFailure {
  const segments = rejection.path ?? []
  const path = renderPath(segments)
  return new ValidationFailure({
    stage: 'tool-args',
    message: `guard ${rejection.guard} rejected the arguments: ${rejection.reason}`,
    issues: [{ path, segments, code: 'other', message: rejection.reason }],
    rawOutput: typeof args === 'string' ? args : jsonTextOf(args),
    path,
  })
}
