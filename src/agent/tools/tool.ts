import { option, optionsContract } from '../../model/options-contract.ts'
import type { ToolSpec } from '../../model/tool-call.ts'
import { compileSchema, type CompiledSchema, type InferSchema, type OutputSchema } from '../../validation/index.ts'
import { assertGuards, type ToolGuard } from './guard.ts'
import type { NeedsApproval } from '../approval/approval-types.ts'

/** What `execute` receives besides the arguments. */
export interface ToolContext {
  /** The run's abort signal: pass it on to anything slow the tool does. */
  readonly signal: AbortSignal | undefined
  /** Id of the model's tool call. */
  readonly callId: string
  /** Name of the agent running the tool. */
  readonly agent: string
  /** Argument retries it took to get valid arguments (0 when the first attempt was valid). */
  readonly retryCount: number
  /**
   * In a durable run (`agent.run(input, { durable })`): `<runId>:<turn>:<callId>`, the same on every
   * replay of the run. Pass it to a side-effecting API (a payment's idempotency key) so that a call
   * in flight when the process died, run again on resume, has one effect. A call id the model repeats
   * in one turn is numbered (`<callId>#2`), and a `:` or `%` in the run or call id is written `%3A` or
   * `%25`, so no two calls share a key. Also set on a call an approval let run. Absent otherwise.
   */
  readonly idempotencyKey?: string
}

/** What {@link tool} takes. */
export interface ToolConfig<S extends OutputSchema<unknown>, O> {
  /** Sent to the model; letters, digits, `_` and `-`, at most 64 characters (the strictest provider's rule). */
  readonly name: string
  /** Sent to the model with the tool; absent, the provider gets none (every provider takes a tool without one). */
  readonly description?: string
  /** Schema of the arguments: TypeBox, Standard Schema (Zod, Valibot, ...), raw JSON Schema or `{parse}`. */
  readonly input: S
  /** Runs the tool on validated arguments; its result (a string, or JSON) goes back to the model. */
  readonly execute: (args: InferSchema<S>, ctx: ToolContext) => O | Promise<O>
  /** Guards of this tool, run after the agent's own (`toolGuards`) on every attempt and retry. */
  readonly guards?: readonly ToolGuard<InferSchema<S>>[]
  /** Argument retries per logical call of this tool; overrides the agent's `maxToolRetries`. 0 disables. */
  readonly maxRetries?: number
  /**
   * A human approves each call before it runs (`true`), or the calls this function picks: a call
   * that passed validation and every guard pauses the run (durably with a port's `awaitSignal`,
   * else the session store holds it) until it is approved, rejected (the model is told) or expires.
   * The approval is bound to the digest of the exact arguments. @default false
   */
  readonly needsApproval?: NeedsApproval<InferSchema<S>>
  /** How long an approval waits before it expires (the model is told), whole ms. @default 86_400_000 (24 hours) */
  readonly approvalTimeoutMs?: number
}

/** A tool the model may call, made by {@link tool}. Immutable. */
export interface Tool<I = unknown, O = unknown> {
  readonly name: string
  /** The description given to {@link tool}; `''` when none was. */
  readonly description: string
  /** The compiled input schema (compiled once, when the tool is defined). */
  readonly input: CompiledSchema<I>
  /** What is sent to the provider: name, description and the JSON Schema of the arguments. */
  readonly spec: ToolSpec
  readonly guards: readonly ToolGuard<I>[]
  readonly maxRetries: number | undefined
  /** Whether a call needs a human's approval before it runs (see {@link ToolConfig.needsApproval}); absent: never. */
  readonly needsApproval?: NeedsApproval<I> | undefined
  /** How long an approval waits before it expires, in ms (absent: 24 hours). */
  readonly approvalTimeoutMs?: number | undefined
  execute(args: I, ctx: ToolContext): O | Promise<O>
}

/** Any tool, whatever its input and output types (what `.tool()` and `.tools()` accept). */
// biome-ignore lint/suspicious/noExplicitAny: guards and execute take the input, so Tool<{city: string}> is not a Tool<unknown>.
export type AnyTool = Tool<any, unknown>

const NAME = /^[A-Za-z0-9_-]{1,64}$/

/** The contract of {@link ToolConfig}: a misspelt key (`maxRetry`, `guard`) is refused, not ignored. */
export const TOOL_CONFIG = optionsContract<ToolConfig<OutputSchema<unknown>, unknown>>('tool', {
  name: option.where("1-64 letters, digits, '_' or '-'", (v) => typeof v === 'string' && NAME.test(v)),
  description: option.string(),
  input: option.any(),
  execute: option.function(),
  guards: option.any(),
  maxRetries: option.integer(0),
  needsApproval: option.where('a boolean or a function', (v) => typeof v === 'boolean' || typeof v === 'function'),
  approvalTimeoutMs: option.duration(),
})

/**
 * Defines a tool. The input schema is compiled now, so a bad schema fails at definition, not
 * mid-run; its JSON Schema (or `{type: 'object'}` when none can be derived, e.g. a `{parse}` object)
 * is what the provider sees.
 *
 * @example
 * const getWeather = tool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   input: Type.Object({ city: Type.String() }),
 *   execute: async ({ city }) => ({ city, celsius: 21 }),
 * })
 */
export function tool<S extends OutputSchema<unknown>, O>(config: ToolConfig<S, O>): Tool<InferSchema<S>, O> {
  if (config === null || typeof config !== 'object') throw new TypeError('tool: expected a config object')
  // What was checked is what is used: a getter answering another value on a second read (a 2^31 ms approvalTimeoutMs) never reaches the tool.
  const checked = TOOL_CONFIG.check(config as unknown as ToolConfig<OutputSchema<unknown>, unknown>) as unknown as ToolConfig<S, O>
  const { name, description, execute, guards = [], maxRetries, needsApproval, approvalTimeoutMs } = checked
  if (name === undefined) throw new TypeError("tool: name must be 1-64 letters, digits, '_' or '-', got undefined")
  if (execute === undefined) throw new TypeError(`tool '${name}': execute must be a function`)
  assertGuards(guards, `tool '${name}': guards`)
  const input = compileSchema(checked.input) as CompiledSchema<InferSchema<S>>
  // Providers take a tool's arguments as one JSON object (OpenAI `parameters`, Anthropic `input_schema`).
  const type = input.jsonSchema?.type
  if (type !== undefined && type !== 'object') {
    throw new TypeError(`tool '${name}': input must describe an object (the call's named arguments), got a schema of type ${JSON.stringify(type)}`)
  }
  return Object.freeze({
    name,
    description: description ?? '',
    input,
    spec: Object.freeze({ name, ...(description === undefined ? {} : { description }), inputSchema: input.jsonSchema ?? { type: 'object' } }),
    guards: Object.freeze([...guards]),
    maxRetries,
    ...(needsApproval === undefined || needsApproval === false ? {} : { needsApproval }),
    ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
    execute: (args: InferSchema<S>, ctx: ToolContext) => execute(args, ctx),
  })
}
