import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import type { Provider } from '../../../src/index.ts'
import { aiSdk } from '../../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../../src/providers/anthropic/index.ts'
import { openai } from '../../../src/providers/openai/index.ts'
import type { LoopbackServer } from './loopback-server.ts'

/**
 * The library's adapters over the official SDK clients, each speaking its wire format to the loopback
 * `server` (read when called: the server starts in `beforeAll`), with the SDKs' own retries off.
 */
export function loopbackProviders(server: () => LoopbackServer): {
  readonly openai: () => Provider
  readonly anthropic: () => Provider
  readonly gateway: () => Provider
} {
  return {
    openai: () => openai({ client: new OpenAI({ baseURL: `${server().url}/v1`, apiKey: 'k', maxRetries: 0 }), model: 'gpt-test' }),
    anthropic: () => anthropic({ client: new Anthropic({ baseURL: server().url, apiKey: 'k', maxRetries: 0 }), model: 'claude-test' }),
    gateway: () => aiSdk(createGateway({ baseURL: server().url, apiKey: 'k' })('openai/gpt-test')),
  }
}
