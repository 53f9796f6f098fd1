import type { Message } from '../../src/model/message.ts'
import type { JsonSchema, ModelRequest } from '../../src/model/request.ts'

/** A first-attempt request with a response schema. */
export const askFor = (schema: JsonSchema, question = 'Refund order #42 for $50, due soon.'): ModelRequest => ({
  system: 'You decide refund requests. Output JSON.',
  messages: [{ role: 'user', content: question }],
  responseSchema: schema,
})

/** The same request followed by the gate's ephemeral retry tail, built by hand. */
export const retryOf = (request: ModelRequest, previous: string, feedback: string): ModelRequest => ({
  ...request,
  messages: [
    ...request.messages,
    { role: 'assistant', content: previous, ephemeral: true } satisfies Message,
    { role: 'user', content: feedback, ephemeral: true } satisfies Message,
  ],
})

/** Feedback in the gate's shape: a header, one `- '<path>': <text>` line per issue, a closing line. */
export const feedback = (...lines: string[]): string =>
  [
    'Your previous answer did not match the required JSON schema:',
    ...lines,
    'Reply again with only the corrected JSON value, fixing every issue listed above.',
  ].join('\n')
