import type { CompilerModule, Validator } from './typebox-engines.ts'

/** TypeBox's interpretive checks (`typebox/value`): they walk the schema as data and never generate code. */
export interface InterpretingModule {
  Check(context: unknown, type: unknown, value: unknown): boolean
  Errors(context: unknown, type: unknown, value: unknown): readonly unknown[]
}

/**
 * A compiler that compiles nothing: each "validator" checks by walking the schema with TypeBox's
 * interpretive engine, so a schema from an untrusted source (an MCP server's `inputSchema`) never
 * becomes code, whatever its property names or keywords hold. Slower than generated code, the same
 * verdicts and errors.
 */
export function interpretedCompiler(value: InterpretingModule): CompilerModule {
  return {
    Compile(context: Record<string, unknown>, schema: unknown): Validator {
      return {
        Check: (v) => value.Check(context, schema, v),
        Errors: (v) => value.Errors(context, schema, v),
        Context: () => context,
        Type: () => schema,
      }
    },
  }
}
