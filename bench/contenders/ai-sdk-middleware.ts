import { existsSync } from 'node:fs'
import path from 'node:path'
import type { Contender, Unsupported } from './contender.ts'

const MIDDLEWARE = path.resolve(import.meta.dirname, '../../src/integrations/ai-sdk-middleware')

/**
 * The AI SDK wrapped with our middleware (`wrapLanguageModel`). The middleware is being written in
 * src/integrations/ai-sdk-middleware; until it exists the row reads "pending".
 */
export const aiSdkMiddlewareContender: Contender = {
  name: 'Vercel AI SDK + reliability-gate middleware',
  prepare(): Unsupported {
    return existsSync(MIDDLEWARE) || existsSync(`${MIDDLEWARE}.ts`)
      ? { unsupported: 'pending: the middleware exists but is not wired into the benchmark yet' }
      : { unsupported: 'pending: src/integrations/ai-sdk-middleware is not there yet' }
  },
}
