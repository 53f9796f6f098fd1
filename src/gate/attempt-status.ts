import type { ErrorKind } from '../model/error-kind.ts'
import type { ValidationStage } from '../validation/validation-failure.ts'
import type { AttemptStatus } from './attempt-record.ts'

/** Maps an attempt's error kind (and validation stage) to its log status. */
export function attemptStatus(kind: ErrorKind, stage: ValidationStage | undefined): AttemptStatus {
  switch (kind) {
    case 'ok':
      return 'success'
    case 'schema-fail':
    case 'tool-args-invalid':
      return stage === 'json-parse' ? 'parse_error' : 'schema_error'
    case 'truncated':
      return 'truncated'
    case 'refusal':
      return 'refusal'
    case 'malformed-response':
      return 'malformed_response'
    case 'timeout':
      return 'timeout'
    case 'rate-limit':
      return 'rate_limit'
    case 'http-5xx':
    case 'auth':
    // The provider's 4xx refusal of the request itself.
    case 'context-overflow':
    case 'schema-rejected':
    case 'unsupported-parameter':
    case 'payload-too-large':
      return 'http_error'
    case 'network':
      return 'network'
    case 'circuit-open':
      return 'circuit_open'
    case 'aborted':
      return 'aborted'
    case 'budget-exceeded':
      return 'budget_exceeded'
    case 'unknown':
      return 'error'
  }
}
