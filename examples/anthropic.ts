/**
 * A real provider behind the gate: Anthropic's Messages API through the `anthropic` adapter. The answer
 * must match the refund schema; a failing one is retried with ephemeral feedback (at most 3 attempts,
 * the same mistake twice fails fast), and a run that cannot succeed ends in one typed error.
 *
 * Run: ANTHROPIC_API_KEY=sk-ant-... npx node examples/anthropic.ts   (ANTHROPIC_MODEL overrides claude-sonnet-4-5)
 */
import Anthropic from '@anthropic-ai/sdk'
import { Type } from 'typebox'
import { Agent, isReliabilityFailFastError, strictOutputRules } from '../src/index.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'

const apiKey = process.env['ANTHROPIC_API_KEY']
if (!apiKey) {
  console.log('examples/anthropic.ts: set ANTHROPIC_API_KEY to run it against Anthropic (nothing was sent).')
  process.exit(0)
}

const Refund = Type.Object(
  { orderId: Type.String(), action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number(), reason: Type.String() },
  { additionalProperties: false },
)

// maxRetries: 0, so that the gate, not the SDK, decides what to retry.
const provider = anthropic({ client: new Anthropic({ apiKey, maxRetries: 0 }), model: process.env['ANTHROPIC_MODEL'] ?? 'claude-sonnet-4-5' })
const agent = Agent.create({ provider, name: 'billing' })
  .system('You decide refund requests. Answer with one JSON object: orderId, action ("refund" or "reject"), amount in USD, reason.')
  .outputSchema(Refund)
  .reliability({ postDecide: strictOutputRules(3) })
  .build()

agent.on('validation_failed', (e) => console.log(`attempt ${e.attempt} rejected: ${e.message}`))

try {
  const result = await agent.runDetailed({ message: 'Order #42 was charged twice, $50 each time. Please refund the duplicate.' })
  console.log('refund decision:', result.value)
  console.log(`${result.attempts.length} attempt(s), ${result.usage.inputTokens} input and ${result.usage.outputTokens} output tokens`)
} catch (error) {
  if (!isReliabilityFailFastError(error)) throw error
  // Every failure is this one error: its kind says why, its attempts say what the model answered.
  console.error(`no valid answer: ${error.kind} after ${error.attempts.length} attempt(s): ${error.reason}`)
  process.exitCode = 1
}
