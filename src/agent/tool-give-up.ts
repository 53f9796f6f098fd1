import { FailFastKinds, type FailFastKind } from '../model/fail-fast-kind.ts'
import type { ToolArgsVerdict } from './tool-args-verdict.ts'

/** A logical tool call whose arguments did not settle valid, as every host maps it. */
export type UnsettledVerdict = Exclude<ToolArgsVerdict, { readonly status: 'valid' }>

/** Why a tool call's arguments could not be settled, in the hosts' own words. */
export interface ToolGiveUp {
  /**
   * The failure's kind: `tool-call-abandoned` and `schema-stuck-loop` (only with `toolGiveUpStops`),
   * `tool-args-invalid` for the rest.
   */
  readonly kind: FailFastKind
  readonly reason: string
  /**
   * The run stops here (a typed stop the user turned on with `toolGiveUpStops`). Otherwise the seed's
   * outcome stands: the agent answers the call with an error result and the run goes on, or (prose)
   * the model's answer stands as the answer.
   */
  readonly stops: boolean
}

/**
 * The one mapping of an unsettled tool call (DESIGN.md "Tool-call argument retry"), shared by the
 * agent, the AI SDK middleware and the LangChain middleware: what kind of failure it is, why, and
 * whether it stops the run. By default nothing stops the run (the seed's outcomes: `redundant`
 * counts against the budget until `exhausted`, `llm_gave_up` lets the model's prose answer stand);
 * the verdicts `abandoned` and `stuck` exist only when the user turned the typed stop on.
 */
export function toolGiveUp(tool: string, verdict: UnsettledVerdict, retries: number): ToolGiveUp {
  const why = verdict.failure.message
  switch (verdict.status) {
    case 'guard-rejected':
      return {
        kind: FailFastKinds.ToolArgsInvalid,
        reason: `guard ${verdict.rejection.guard} rejected the arguments of tool '${tool}': ${verdict.rejection.reason}`,
        stops: false,
      }
    case 'abandoned': {
      const reasked = verdict.reasked ? ', and did not call it when re-asked with toolChoice pinned to it' : ''
      return {
        kind: FailFastKinds.ToolCallAbandoned,
        reason: `the model answered in prose instead of calling tool '${tool}' again after its arguments were rejected${reasked}: ${why}`,
        stops: true,
      }
    }
    case 'stuck':
      return {
        kind: FailFastKinds.SchemaStuckLoop,
        reason: `the retry of tool '${tool}' repeated the rejected arguments of the attempt before it: ${why}`,
        stops: true,
      }
    case 'answered':
      return {
        kind: FailFastKinds.ToolArgsInvalid,
        reason: `the model answered in prose instead of calling tool '${tool}' again after feedback on its arguments (${why})`,
        stops: false,
      }
    case 'invalid-args':
      if (verdict.outcome === 'llm_gave_up')
        return {
          kind: FailFastKinds.ToolArgsInvalid,
          reason: `the model did not call tool '${tool}' again after feedback on its arguments (${why})`,
          stops: false,
        }
      return {
        kind: FailFastKinds.ToolArgsInvalid,
        reason: `the arguments of tool '${tool}' are still invalid after ${retries} ${retries === 1 ? 'retry' : 'retries'} (${why})`,
        stops: false,
      }
  }
}
