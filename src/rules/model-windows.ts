import { option, type OptionCheck, optionsContract } from '../model/options-contract.ts'

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

const ENTRY = 'an object of model names to { contextWindow, maxOutputTokens? } (whole numbers above 0)'

/** One entry of a `models` table, declared once: a misspelt `maxOuputTokens` is refused with "did you mean". */
const modelWindowContract = (where: string) => optionsContract<ModelWindow>(where, { contextWindow: option.integer(1), maxOutputTokens: option.integer(1) })

/** The window of entry `name` of `label`'s models, checked, each field read once: a TypeError or RangeError naming it. */
function modelWindowOf(label: string, name: string, entry: unknown): ModelWindow {
  const where = `${label}: models[${JSON.stringify(name)}]`
  const checked = modelWindowContract(where).check(entry as ModelWindow)
  if (checked.contextWindow === undefined) throw new TypeError(`${where}: contextWindow is required`)
  return w(checked.contextWindow, checked.maxOutputTokens)
}

/** The check of a `models` option: an object of `{ contextWindow, maxOutputTokens? }` entries, whole numbers above 0, and no other key. */
export const modelWindowsCheck =
  (label: string): OptionCheck =>
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return ENTRY
    for (const [name, entry] of Object.entries(v)) modelWindowOf(label, name, entry)
    return undefined
  }

/** The built-in table with `extra` over it (a frozen copy; `extra`'s entries win, each checked as it is read). */
export function withModels(extra: ModelWindows | undefined, label = 'withModels'): ModelWindows {
  if (extra === undefined) return MODEL_WINDOWS
  // Object.fromEntries defines own data properties: a model named `__proto__` is an entry like any
  // other, never the table's prototype (an assignment would set that).
  const added = Object.entries(extra).map(([name, entry]): [string, ModelWindow] => [name, modelWindowOf(label, name, entry)])
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
