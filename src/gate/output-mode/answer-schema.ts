import type { ModelRequest } from '../../model/request.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import type { OutputModeState } from './output-mode-state.ts'

/**
 * The schema an attempt's answer is checked with: the output schema itself, or, for an answer to a
 * native request whose compiled schema reshapes values (OpenAI strict: `null` for an absent
 * property, `{ value }` boxes), the output schema applied to the answer mapped back by that
 * compile's `back`, so the user's schema judges the original shape (an optional property absent,
 * not `null`) and the value handed back is in that shape.
 */
export function answerSchema<T>(state: OutputModeState, schema: CompiledSchema<T> | undefined, request: ModelRequest): CompiledSchema<T> | undefined {
  const native = request.nativeSchema
  if (schema === undefined || native === undefined || request.outputMode !== 'native') return schema
  const known = state.views.get(native)
  if (known !== undefined) return known as CompiledSchema<T>
  const compiled = state.natives.get(native)
  // Anthropic and Gemini compiles send values unchanged both ways.
  if (compiled === undefined || compiled.target !== 'openai-strict') return schema
  const back = (value: unknown): unknown => {
    try {
      return compiled.back(value)
    } catch {
      // An answer outside the compiled shape is judged as it came.
      return value
    }
  }
  // No `test`: the fast whole-answer path would hand back the value before `back`.
  const view: CompiledSchema<T> = { vendor: schema.vendor, jsonSchema: schema.jsonSchema, validate: (value) => schema.validate(back(value)) }
  state.views.set(native, view as CompiledSchema<unknown>)
  return view
}
