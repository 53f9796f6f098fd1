import type { ModelResponse, Provider } from '../../src/index.ts'

/**
 * A provider whose answer waits until `release()`: what a test needs to act while an attempt is in
 * flight (attach a listener, abort, ...). Each call waits for the next `release()`.
 */
export function heldProvider(content: string): { readonly provider: Provider; release(): void } {
  let release: () => void = () => {}
  const answer: ModelResponse = { content, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
  return {
    provider: {
      name: 'held',
      complete: () =>
        new Promise((resolve) => {
          release = () => resolve(answer)
        }),
    },
    release: () => release(),
  }
}
