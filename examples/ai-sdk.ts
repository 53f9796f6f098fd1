/**
 * The gate inside the Vercel AI SDK: `reliabilityMiddleware` wraps any AI SDK model (here OpenAI's,
 * from `@ai-sdk/openai`), so `generateText` with `Output.object` gets an answer validated against the
 * schema, retried with ephemeral feedback when it fails (at most 3 attempts, the same mistake twice
 * fails fast), with the gate's typed events.
 *
 * Run: OPENAI_API_KEY=sk-... npx node examples/ai-sdk.ts   (OPENAI_MODEL overrides gpt-4o-mini)
 */
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, Output, wrapLanguageModel } from 'ai'
import { z } from 'zod'
import { isReliabilityFailFastError, strictOutputRules } from '../src/index.ts'
import { reliabilityMiddleware } from '../src/integrations/ai-sdk.ts'

const apiKey = process.env['OPENAI_API_KEY']
if (!apiKey) {
  console.log('examples/ai-sdk.ts: set OPENAI_API_KEY to run it against OpenAI through the AI SDK (nothing was sent).')
  process.exit(0)
}

const Refund = z.strictObject({ orderId: z.string(), action: z.enum(['refund', 'reject']), amount: z.number(), reason: z.string() })

const middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3) })
middleware.on('validation_failed', (e) => console.log(`attempt ${e.attempt} rejected: ${e.message}`))
const model = wrapLanguageModel({ model: createOpenAI({ apiKey })(process.env['OPENAI_MODEL'] ?? 'gpt-4o-mini'), middleware })

try {
  // maxRetries: 0, so that the gate, not the AI SDK, decides what to retry.
  const { output, usage } = await generateText({
    model,
    output: Output.object({ schema: Refund }),
    system: 'You decide refund requests.',
    prompt: 'Order #42 was charged twice, $50 each time. Please refund the duplicate.',
    maxRetries: 0,
  })
  console.log('refund decision:', output)
  console.log(`${usage.inputTokens ?? 0} input and ${usage.outputTokens ?? 0} output tokens over every attempt`)
} catch (error) {
  if (!isReliabilityFailFastError(error)) throw error
  console.error(`no valid answer: ${error.kind} after ${error.attempts.length} attempt(s): ${error.reason}`)
  process.exitCode = 1
}
