import type { WireOutputMode } from '../../model/output-mode.ts'
import type { ReliabilityRule } from '../../rules/rule.ts'
import type { ReliabilityScope } from '../../rules/scope.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { availableBelow, demote, type OutputModeState } from './output-mode-state.ts'
import { schemaDigest } from './schema-digest.ts'

/**
 * The gate's own first PostDecide rule: a provider's 400 refusing the schema (`schema-rejected`) of
 * a request sent in `native` or `json` mode lowers that schema's mode for that provider one step
 * (`native` -> `json` -> `prompt`, skipping a JSON mode the provider lacks), remembered for every
 * later run of the gate, reported as `output_mode_demoted`, and retries in the lower mode: one
 * refused call per schema and mode, never the same request again. In `prompt` mode (nothing left
 * to lower) it does not match, and the refusal fails fast as any other.
 */
export function outputModeDemotion(state: OutputModeState, providers: readonly ResolvedProvider[]): ReliabilityRule {
  const lowered = (scope: ReliabilityScope): WireOutputMode | undefined => {
    const sent = scope.attemptRequest
    const mode = sent?.outputMode
    if (sent?.responseSchema === undefined || (mode !== 'native' && mode !== 'json')) return undefined
    return availableBelow(mode, providers[scope.providerIdx]?.outputModes)
  }
  return Object.freeze({
    kind: 'schema-rejected',
    label: 'outputMode demotion',
    then: 'retry',
    failuresOnly: true,
    when: function schemaRejectedDemotes(scope: ReliabilityScope): boolean {
      if (scope.errorKind !== 'schema-rejected') return false
      const to = lowered(scope)
      const sent = scope.attemptRequest
      const digest = sent?.responseSchema === undefined ? undefined : schemaDigest(sent.responseSchema)
      if (to === undefined || digest === undefined || sent?.outputMode === undefined || sent.outputMode === 'auto') return false
      const entry = providers[scope.providerIdx] as ResolvedProvider
      const site = { runId: scope.runId, tags: undefined, providerIdx: scope.providerIdx, provider: entry.name, modes: entry.outputModes }
      demote(state, site, digest, { from: sent.outputMode, to, cause: 'schema-rejected', reason: messageOf(scope.error) })
      return true
    },
    adjustRequest: (scope: ReliabilityScope) => {
      const to = lowered(scope)
      return to === 'json' || to === 'prompt' ? { outputMode: to } : {}
    },
  } satisfies ReliabilityRule)
}

/** The provider's message, bounded (it goes into an event). */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : 'the provider refused the schema'
  return text.length > 500 ? `${text.slice(0, 500)}…` : text
}
