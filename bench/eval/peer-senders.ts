import { compileProviderSchema, PROVIDER_TARGETS, type ProviderTarget } from '../../src/validation/building-blocks.ts'
import { geminiToJsonSchema } from './gemini-json-schema.ts'
import { PEER_TRANSFORMS, type PeerOutcome } from './peer-transforms.ts'
import { xOptionalForward } from './schema-walks.ts'

/** What a tool sends for a schema, and how it maps a value the original accepts to the one it expects. */
export interface Sent {
  readonly schema: unknown
  readonly forward: (value: unknown) => unknown
  /** The tool maps the provider's answer back (ours: `back`; Mastra: `x-optional` null to absent). */
  readonly reverse: boolean
}

/** One tool's transform of a schema for one provider: what it sends natively, or why it sends nothing. */
export type Send = (schema: unknown) => Promise<{ ok: true; sent: Sent } | { ok: false; reason: string }>

/** The census's tools: ours and the peers of `peer-transforms.ts`. */
export type CensusTool = 'reliability-gate' | 'mastra' | 'ai-sdk'

/** A tool's transforms, one per census row: ours per provider target, then the peer's. */
export function senders(tool: CensusTool): { target: ProviderTarget; via: string; send: Send }[] {
  const out: { target: ProviderTarget; via: string; send: Send }[] = []
  if (tool === 'reliability-gate') {
    for (const target of PROVIDER_TARGETS) out.push({ target, via: `compileProviderSchema(schema, '${target}')`, send: async (schema) => ours(schema, target) })
  }
  for (const peer of PEER_TRANSFORMS.filter((p) => p.tool === tool)) {
    const mastraOpenAI = peer.tool === 'mastra' && peer.target === 'openai-strict'
    out.push({
      target: peer.target,
      via: peer.via,
      send: async (schema) => {
        const outcome: PeerOutcome = await peer.transform(schema)
        if (!outcome.ok) return outcome
        return {
          ok: true,
          sent: { schema: outcome.schema, forward: mastraOpenAI ? (v) => xOptionalForward(outcome.schema, v) : (v) => v, reverse: mastraOpenAI },
        }
      },
    })
  }
  return out
}

function ours(schema: unknown, target: ProviderTarget): { ok: true; sent: Sent } | { ok: false; reason: string } {
  const result = compileProviderSchema(schema, target)
  if (!result.ok) return { ok: false, reason: result.reason }
  return { ok: true, sent: { schema: target === 'gemini' ? geminiToJsonSchema(result.schema) : result.schema, forward: result.forward, reverse: true } }
}
