import type { ModelResponse } from '../model/response.ts'
import type { ToolCall } from '../model/tool-call.ts'
import type { ValidationFailure } from '../validation/index.ts'
import type { GuardRejection } from './tools/run-guards.ts'

/** How the arguments of a logical tool call settled. */
export type ToolArgsVerdict =
  /** Valid (and accepted by every guard): `value` is the validated input, `call` the model's call that carried it. */
  | { readonly status: 'valid'; readonly outcome: 'no_retry' | 'success'; readonly value: unknown; readonly call: ToolCall }
  /** A guard rejected them: never retried. */
  | {
      readonly status: 'guard-rejected'
      readonly outcome: 'no_retry' | 'fabricated_id_on_retry'
      readonly rejection: GuardRejection
      readonly failure: ValidationFailure
    }
  /** Still invalid when the retries ran out, or the retry reply called another tool instead. */
  | { readonly status: 'invalid-args'; readonly outcome: 'exhausted' | 'llm_gave_up'; readonly failure: ValidationFailure }
  /** The retry reply was prose (no tool call): the seed's `llm_gave_up`, the model's answer (`response`) stands. */
  | { readonly status: 'answered'; readonly outcome: 'llm_gave_up'; readonly failure: ValidationFailure; readonly response: ModelResponse }
  /**
   * Only with `toolGiveUpStops`: the model answered in prose (after the forced re-ask too when
   * `reasked`, or with another tool to that re-ask): the run stops (`tool-call-abandoned`).
   */
  | { readonly status: 'abandoned'; readonly outcome: 'llm_gave_up'; readonly failure: ValidationFailure; readonly reasked: boolean }
  /** Only with `toolGiveUpStops`: a retry repeated the rejected arguments of the attempt before it: the run stops (`schema-stuck-loop`). */
  | { readonly status: 'stuck'; readonly outcome: 'exhausted'; readonly failure: ValidationFailure }
