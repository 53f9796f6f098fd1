/**
 * Declarative strict output: a pyconveyor step config (snake_case keys, as written in YAML) becomes
 * a reliability config. The simulated model answers with a string amount and an extra field; the
 * Jinja error template words the feedback; every attempt's log is on the result.
 */
import { Type } from 'typebox'
import { Agent, strictOutput } from '../src/index.ts'
import { simulated } from '../src/providers/index.ts'
import { section, traceAgent } from './trace.ts'

const Refund = Type.Object(
  {
    orderId: Type.String(),
    action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]),
    amount: Type.Number(),
  },
  { additionalProperties: false },
)

// The same keys a pyconveyor step carries; unknown keys or wrong types throw a StepConfigError naming each.
const step = {
  max_attempts: 3,
  error_feedback: true,
  retry_hint: 'Amounts are plain numbers, without currency.',
  retry_on: ['parse', 'schema', 'rate_limit'],
  schema_strict: true,
  max_feedback_tokens: 2000,
  // Rendered as pyconveyor renders it: Jinja2 with trim_blocks and lstrip_blocks. In a pipeline this is
  // usually a file path, e.g. 'prompts/retry_feedback.j2', read relative to fromStepConfig's baseDir.
  error_template: [
    'Attempt {{ attempt }}: your answer was rejected ({{ error_type }} error).',
    '{% for e in errors %}',
    "- '{{ e.loc_str }}': {{ e.msg }}",
    '{% endfor %}',
    '{{ retry_hint }}',
  ].join('\n'),
}

export async function strictOutputConfigExample(): Promise<void> {
  section('declarative strict output', 'strictOutput.fromStepConfig(): a pyconveyor step config with a Jinja error template.')
  const agent = Agent.create({ provider: simulated({ seed: 3, faults: ['number-as-string', 'extra-field'] }), model: 'sim-1', name: 'billing' })
    .system('You decide refund requests. Output JSON.')
    .outputSchema(Refund)
    .reliability(strictOutput.fromStepConfig(step))
    .build()
  traceAgent(agent)
  const result = await agent.runDetailed({ message: 'refund order #42 for $50' })
  console.log('  final value:', result.value)
  for (const a of result.attempts)
    console.log(`  attempt ${a.attempt}: ${a.status}${a.errorType === undefined ? '' : ` (${a.errorType})`} ${a.errors.join('; ')}`)
}

if (import.meta.main) await strictOutputConfigExample()
