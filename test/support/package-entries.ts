/** Every package entry point (package.json `exports`) and the module it is built from. */
export const PACKAGE_ENTRIES: Readonly<Record<string, () => Promise<Record<string, unknown>>>> = {
  '.': () => import('../../src/index.ts'),
  providers: () => import('../../src/providers/index.ts'),
  openai: () => import('../../src/providers/openai/index.ts'),
  anthropic: () => import('../../src/providers/anthropic/index.ts'),
  'ai-sdk': () => import('../../src/integrations/ai-sdk.ts'),
  mcp: () => import('../../src/integrations/mcp.ts'),
  langchain: () => import('../../src/integrations/langchain.ts'),
  redis: () => import('../../src/redis.ts'),
  sqlite: () => import('../../src/sqlite.ts'),
  postgres: () => import('../../src/postgres.ts'),
  durable: () => import('../../src/durable.ts'),
  restate: () => import('../../src/restate.ts'),
  dbos: () => import('../../src/dbos.ts'),
  validation: () => import('../../src/validation/building-blocks.ts'),
  otel: () => import('../../src/otel/index.ts'),
  trace: () => import('../../src/trace/index.ts'),
}
