import { describe, expect, it } from 'vitest'
import { censusOfTool, runPeerSchemaCensus, transformStep } from '../../bench/eval/peer-schema-census.ts'
import { PEER_TRANSFORMS } from '../../bench/eval/peer-transforms.ts'
import { providerRuleBreak } from '../../bench/eval/provider-rules.ts'
import { corpora, describeWith } from '../support/requirements.ts'

const Mixed = {
  type: 'object',
  properties: { title: { type: 'string', minLength: 3 }, note: { type: 'string' }, scores: { type: 'object', additionalProperties: { type: 'number' } } },
  required: ['title'],
}

describe('provider rules of the census', () => {
  it('refuses for OpenAI strict an optional property, an open object and an unsupported keyword; Gemini documents none', () => {
    expect(providerRuleBreak('openai-strict', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false })).toBe(
      'a property not in required',
    )
    expect(providerRuleBreak('openai-strict', { type: 'object', properties: {}, required: [] })).toBe('an object without additionalProperties: false')
    expect(providerRuleBreak('openai-strict', { type: 'array', items: { type: 'string' } })).toBe('root is not an object')
    expect(providerRuleBreak('anthropic', { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, additionalProperties: false })).toBe(
      'unsupported keyword minimum',
    )
    expect(providerRuleBreak('anthropic', { type: 'object', properties: { n: { type: 'string' } }, additionalProperties: false })).toBeUndefined()
    expect(providerRuleBreak('gemini', Mixed)).toBeUndefined()
  })
})

describe('peer transforms', () => {
  it('reach every peer for every provider: Mastra closes the map for OpenAI, the AI SDK sends OpenAI strict as written', async () => {
    const byKey = new Map(PEER_TRANSFORMS.map((t) => [`${t.tool}/${t.target}`, t]))
    expect([...byKey.keys()].sort()).toEqual(
      ['ai-sdk/anthropic', 'ai-sdk/gemini', 'ai-sdk/openai-strict', 'mastra/anthropic', 'mastra/gemini', 'mastra/openai-strict'].sort(),
    )
    const mastra = await byKey.get('mastra/openai-strict')?.transform(Mixed)
    expect(mastra).toMatchObject({ ok: true })
    const scores = (mastra as { schema: { properties: { scores: { anyOf: { type: string; additionalProperties?: unknown }[] } } } }).schema.properties.scores
    expect(scores.anyOf[0]).toMatchObject({ type: 'object', additionalProperties: false })
    const aiSdk = await byKey.get('ai-sdk/openai-strict')?.transform(Mixed)
    expect(aiSdk).toEqual({ ok: true, schema: Mixed })
  })
})

describeWith(corpora)('peer schema census (MaskBench subsample)', () => {
  it('ours changes no meaning and breaks no provider rule; the peers do', async () => {
    const result = await runPeerSchemaCensus({ sampleSize: 100, seed: 7 }, { isolate: false })
    const row = (tool: string, target: string) => result.rows.find((r) => r.tool === tool && r.target === target)
    for (const target of ['openai-strict', 'anthropic', 'gemini']) {
      const ours = row('reliability-gate', target)
      expect(ours?.sent, target).toBeGreaterThan(0)
      expect({ changed: ours?.changedSchemas, maps: ours?.mapsLost, rules: ours?.breaksProviderRules, optional: ours?.optionalRequired }).toEqual({
        changed: 0,
        maps: 0,
        rules: 0,
        optional: 0,
      })
      expect({ failed: ours?.failed, uncounted: ours?.uncounted }).toEqual({ failed: 0, uncounted: 0 })
      // Every valid instance ours rejects is outside its reported narrowing (an open object closed).
      expect(ours?.validRejected).toBe(ours?.validRejectedByClosing)
    }
    expect(row('ai-sdk', 'openai-strict')?.breaksProviderRules).toBeGreaterThan(0)
    expect(row('mastra', 'openai-strict')?.mapsLost).toBeGreaterThan(0)
    expect(row('mastra', 'openai-strict')?.changedSchemas).toBeGreaterThan(0)
    expect(result.unmeasured).toEqual([])
  }, 300_000)

  it("counts a schema whose transform killed a worker as that tool's failure, and checks the other providers' transforms of it", async () => {
    const sample = { sampleSize: 100, seed: 7 }
    const steps: number[] = []
    const killed = { index: 0, step: transformStep(0), why: 'out of memory (heap 3,072 MB)' }
    const [result] = await censusOfTool('mastra', sample, [0], (_, step) => steps.push(step), [killed])
    const [first, ...others] = result?.rows ?? []
    expect(first).toMatchObject({ target: 'openai-strict', failed: 1, sent: 0, refused: 0 })
    expect(first?.failures).toEqual([expect.stringMatching(/: out of memory \(heap 3,072 MB\)$/)])
    expect(others.map((row) => row.failed + row.sent + row.refused)).toEqual([1, 1])
    // The killed step is not run again; the others' transforms and checks are.
    expect(steps).toEqual([0, 3, 4, 5, 6])
  })
})
