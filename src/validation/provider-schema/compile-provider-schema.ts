import { isRecord } from '../../model/is-record.ts'
import type { Codec } from './codec.ts'
import { renderAnthropic } from './render-anthropic.ts'
import { renderGemini } from './render-gemini.ts'
import { renderOpenAIStrict } from './render-openai.ts'
import { type IrContext, ROOT_PLACE, toIr } from './to-ir.ts'
import { type DroppedConstraint, PROVIDER_TARGETS, type ProviderSchemaResult, type ProviderTarget, Uncompilable } from './types.ts'

const identity = (value: unknown): unknown => value

function render(target: ProviderTarget, ctx: IrContext): { schema: Record<string, unknown>; codec: Codec | undefined } {
  const ir = toIr(ctx, ctx.root, ROOT_PLACE)
  const dropped: DroppedConstraint[] = ctx.dropped
  if (target === 'openai-strict') return renderOpenAIStrict(ir, dropped)
  if (target === 'anthropic') return { schema: renderAnthropic(ir, dropped), codec: undefined }
  return { schema: renderGemini(ir, dropped), codec: undefined }
}

/**
 * Compiles one JSON Schema into a provider's structured-output dialect without changing meaning:
 * for every value `v` the original accepts (within the shape the compiled schema can describe, see
 * `narrowed`), `forward(v)` is accepted by the compiled schema and `back(forward(v))` deep-equals
 * `v`. What the dialect cannot express is listed in `dropped` and stays enforced by the gate's
 * validation of the mapped-back answer against the original. A schema the dialect cannot carry
 * without changing meaning (a map, a free-form value, a recursive type, a limit exceeded) comes back
 * as `{ ok: false, reason, at }`: send it in the next mode down.
 *
 * - `openai-strict`: every property required (an optional one as nullable, `null` for absent; one
 *   that already accepts `null` is carried as `{ value }`), objects closed, documented keywords only,
 *   a non-object root carried as `{ value }`.
 * - `anthropic`: objects closed, unsupported keywords moved into `description`.
 * - `gemini`: the OpenAPI-3 `responseSchema` (upper-case types, `nullable`, `propertyOrdering`).
 *
 * @example
 * const compiled = compileProviderSchema(schema, 'openai-strict')
 * if (compiled.ok) send(compiled.schema); const answer = compiled.back(JSON.parse(text))
 */
export function compileProviderSchema(schema: unknown, target: ProviderTarget): ProviderSchemaResult {
  if (!PROVIDER_TARGETS.includes(target))
    throw new TypeError(
      `compileProviderSchema: target must be one of ${PROVIDER_TARGETS.map((t) => `"${t}"`).join(', ')}, got ${JSON.stringify(target) ?? String(target)}`,
    )
  if (!isRecord(schema) && typeof schema !== 'boolean')
    throw new TypeError(`compileProviderSchema: schema must be a JSON Schema (an object or a boolean), got ${schema === null ? 'null' : typeof schema}`)
  const ctx: IrContext = { root: schema, dropped: [], narrowed: [], nodes: 0 }
  try {
    const { schema: compiled, codec } = render(target, ctx)
    return {
      ok: true,
      target,
      schema: compiled,
      forward: codec === undefined ? identity : (value) => codec.forward(value),
      back: codec === undefined ? identity : (value) => codec.back(value),
      dropped: dedupe(ctx.dropped),
      narrowed: ctx.narrowed,
    }
  } catch (error) {
    if (error instanceof Uncompilable) return { ok: false, target, reason: error.reason, at: error.at }
    throw error
  }
}

function dedupe(dropped: readonly DroppedConstraint[]): DroppedConstraint[] {
  const seen = new Set<string>()
  return dropped.filter((d) => {
    const key = `${d.at}\u0000${d.keyword}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
