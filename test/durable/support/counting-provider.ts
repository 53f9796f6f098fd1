import { createServer, type IncomingMessage, type Server } from 'node:http'
import { demoAnswer, labelOf } from './demo-agent.ts'

/** One chat request the fake provider answered: the run that sent it, its `<turn>:<attempt>` label and its messages. */
export interface ProviderCall {
  readonly runId: string
  readonly label: string
  readonly messages: readonly unknown[]
  readonly promptTokens: number
}

/** A loopback OpenAI-wire provider answering the demo agent's script, logging every call across processes. */
export interface CountingProvider {
  readonly baseURL: string
  readonly calls: ProviderCall[]
  /** The calls `runId` sent, in order. */
  of(runId: string): ProviderCall[]
  close(): Promise<void>
}

// Each request message costs 100 input tokens: attempts of one run cost different amounts, so a budget delta names its attempt.
const TOKENS_PER_MESSAGE = 100

/** Starts the counting provider on a free loopback port. */
export async function startCountingProvider(): Promise<CountingProvider> {
  const calls: ProviderCall[] = []
  const server: Server = createServer((req, res) => {
    void body(req).then((text) => {
      const request = JSON.parse(text) as { messages: { role: string; tool_calls?: unknown }[] }
      const runId = String(req.headers['x-run-id'])
      const seed = Number(req.headers['x-demo-seed'])
      const promptTokens = TOKENS_PER_MESSAGE * request.messages.length
      calls.push({ runId, label: labelOf(request.messages), messages: request.messages, promptTokens })
      const answer = demoAnswer(seed, request.messages)
      const message = {
        role: 'assistant',
        content: answer.content,
        refusal: null,
        ...(answer.toolCalls === undefined
          ? {}
          : { tool_calls: answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }),
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: `chatcmpl-${calls.length}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'gpt-sweep',
          choices: [{ index: 0, finish_reason: answer.toolCalls === undefined ? 'stop' : 'tool_calls', logprobs: null, message }],
          usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the counting provider has no port')
  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    calls,
    of: (runId) => calls.filter((c) => c.runId === runId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    req.on('data', (d: Buffer) => (text += d.toString()))
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })
}
