import type { GateEventName } from './event-map.ts'

/** Every event name, once: `on` refuses any other, and a catch-all listener is registered under each. */
export const GATE_EVENT_NAMES = [
  'run_start',
  'run_end',
  'agent_run_start',
  'agent_run_end',
  'attempt_start',
  'attempt_end',
  'validation_failed',
  'decision',
  'retry',
  'recovered',
  'fail_fast',
  'fallback',
  'repaired',
  'template_error',
  'cost_tick',
  'cost_unknown',
  'budget_exceeded',
  'breaker_state',
  'state_lost',
  'tool_start',
  'tool_end',
  'tool_retry_outcome',
  'approval_requested',
  'approval_decided',
  'no_progress',
  'guard_verdict',
  'output_fallback_triggered',
  'output_canned_used',
  'stream_aborted',
  'drift',
  'output_mode_demoted',
  'rule_error',
  'listener_error',
] as const satisfies readonly GateEventName[]

// A compile error here means an event of the map is missing from the list above.
const everyName: Exclude<GateEventName, (typeof GATE_EVENT_NAMES)[number]> extends never ? true : never = true
void everyName
