import { option } from '../model/options-contract.ts'

/** What a model can take: its context window (input plus output tokens) and, when known, its largest output. */
export interface ModelWindow {
  /** Tokens of input plus output the model takes in one call. */
  readonly contextWindow: number
  /** The largest `maxTokens` the model accepts, when it has a limit of its own. */
  readonly maxOutputTokens?: number
}

/** Model windows by model name; a dated name (`gpt-4o-2024-08-06`) finds its base name's entry. */
export type ModelWindows = Readonly<Record<string, ModelWindow>>

const w = (contextWindow: number, maxOutputTokens?: number): ModelWindow =>
  Object.freeze(maxOutputTokens === undefined ? { contextWindow } : { contextWindow, maxOutputTokens })

/**
 * The built-in table, from the providers' model pages (OpenAI's models list, Anthropic's models
 * overview, Google's Gemini models page). Extend or override it with the `models` option of the
 * rules that read it; a model missing from both is never refused, nor failed over from.
 */
export const MODEL_WINDOWS: ModelWindows = Object.freeze({
  'gpt-3.5-turbo': w(16_385, 4_096),
  'gpt-4': w(8_192, 8_192),
  'gpt-4-turbo': w(128_000, 4_096),
  'gpt-4o': w(128_000, 16_384),
  'gpt-4o-mini': w(128_000, 16_384),
  'gpt-4.1': w(1_047_576, 32_768),
  'gpt-4.1-mini': w(1_047_576, 32_768),
  'gpt-4.1-nano': w(1_047_576, 32_768),
  'gpt-5': w(400_000, 128_000),
  'gpt-5-mini': w(400_000, 128_000),
  'gpt-5-nano': w(400_000, 128_000),
  o1: w(200_000, 100_000),
  o3: w(200_000, 100_000),
  'o3-mini': w(200_000, 100_000),
  'o4-mini': w(200_000, 100_000),
  'claude-3-haiku': w(200_000, 4_096),
  'claude-3-opus': w(200_000, 4_096),
  'claude-3-5-haiku': w(200_000, 8_192),
  'claude-3-5-sonnet': w(200_000, 8_192),
  'claude-3-7-sonnet': w(200_000, 64_000),
  'claude-sonnet-4': w(200_000, 64_000),
  'claude-opus-4': w(200_000, 32_000),
  'gemini-1.5-flash': w(1_048_576, 8_192),
  'gemini-1.5-pro': w(2_097_152, 8_192),
  'gemini-2.0-flash': w(1_048_576, 8_192),
  'gemini-2.5-flash': w(1_048_576, 65_536),
  'gemini-2.5-pro': w(1_048_576, 65_536),
})

/** The check of a `models` option: an object of `{ contextWindow, maxOutputTokens? }` entries, whole numbers above 0. */
export const modelWindowsCheck = option.where(
  'an object of model names to { contextWindow, maxOutputTokens? } (whole numbers above 0)',
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v as object).every((e: unknown) => {
      if (typeof e !== 'object' || e === null) return false
      const { contextWindow, maxOutputTokens } = e as Partial<Record<keyof ModelWindow, unknown>>
      return whole(contextWindow) && (maxOutputTokens === undefined || whole(maxOutputTokens))
    }),
)

/** The built-in table with `extra` over it (a frozen copy; `extra`'s entries win). */
export function withModels(extra: ModelWindows | undefined): ModelWindows {
  if (extra === undefined) return MODEL_WINDOWS
  // Object.fromEntries defines own data properties: a model named `__proto__` is an entry like any
  // other, never the table's prototype (an assignment would set that).
  const added = Object.entries(extra).map(([name, entry]): [string, ModelWindow] => [name, w(entry.contextWindow, entry.maxOutputTokens)])
  return Object.freeze(Object.fromEntries([...Object.entries(MODEL_WINDOWS), ...added]))
}

/**
 * The window of `model` in `table`: its own entry, else the longest name it starts with followed by
 * `-` (`claude-sonnet-4-20250514` is `claude-sonnet-4`, `gpt-4o-mini-2024-07-18` is `gpt-4o-mini`);
 * `undefined` for a model the table does not know.
 */
export function windowOf(table: ModelWindows, model: string | undefined): ModelWindow | undefined {
  if (typeof model !== 'string' || model === '') return undefined
  if (Object.hasOwn(table, model)) return table[model]
  let best: string | undefined
  for (const name of Object.keys(table)) {
    if (model.startsWith(`${name}-`) && (best === undefined || name.length > best.length)) best = name
  }
  return best === undefined ? undefined : table[best]
}

/** The vendor a model name belongs to, so a failover never sends one vendor's model name to another's API. */
export function vendorOf(model: string): string {
  // The o-series reasoning models are a family of their own: a chat model is not moved to one.
  if (/^o\d/.test(model)) return 'openai-reasoning'
  if (/^(gpt-|chatgpt)/.test(model)) return 'openai'
  if (model.startsWith('claude')) return 'anthropic'
  if (model.startsWith('gemini')) return 'google'
  return model.split('-')[0] ?? model
}

function whole(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v > 0
}
