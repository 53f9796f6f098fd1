import { describe, expect, it } from 'vitest'
import * as langchain from '../../src/integrations/langchain.ts'
// @ts-expect-error: a plain .mjs script without types.
import { packageEntries } from '../../scripts/package-entries.mjs'

describe('reliability-gate/langchain', () => {
  it('is a subpath of the package, built from src/integrations/langchain.ts', async () => {
    const entries = (await packageEntries()) as { importPath: string; source: string }[]
    expect(entries).toContainEqual({ importPath: 'reliability-gate/langchain', source: 'src/integrations/langchain.ts' })
  })

  it('exports reliabilityMiddleware and nothing else', () => {
    expect(Object.keys(langchain)).toEqual(['reliabilityMiddleware'])
  })
})
