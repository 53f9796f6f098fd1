import { checkRequest } from '../../model/request-problem.ts'
import type {
  ContentBlockParam,
  JSONOutputFormat,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
  ToolChoice as WireToolChoice,
} from '@anthropic-ai/sdk/resources/messages'
import type { Message } from '../../model/message.ts'
import type { ReasoningBlock } from '../../model/reasoning.ts'
import type { ModelRequest } from '../../model/request.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import { objectToolInput, RAW_ARGUMENTS_KEY } from '../adapter-kit/object-tool-input.ts'
import { errorResultText } from '../adapter-kit/error-result-text.ts'
import { wellFormedJson, wellFormedText } from '../adapter-kit/well-formed.ts'
import { WireToolIds } from '../adapter-kit/wire-tool-ids.ts'

/** Settings of the body builder. */
export interface AnthropicRequestSettings {
  readonly model: string
  readonly maxTokens: number
  /** Put a `cache_control` breakpoint on the last block of the base conversation. */
  readonly cache: boolean
  /** Send `responseSchema` as `output_config.format` (structured outputs). */
  readonly structuredOutput: boolean
  readonly extraBody: Readonly<Record<string, unknown>> | undefined
}

interface WireBlock {
  readonly block: ContentBlockParam
  /** The block came from a message of the gate's ephemeral retry tail. */
  readonly ephemeral: boolean
}

interface WireTurn {
  readonly role: 'user' | 'assistant'
  readonly blocks: WireBlock[]
}

/** The contract of {@link toAnthropicRequest}'s settings. */
const ANTHROPIC_REQUEST_SETTINGS = optionsContract<AnthropicRequestSettings>('toAnthropicRequest', {
  model: option.nonEmptyString(),
  maxTokens: option.integer(1),
  cache: option.boolean(),
  structuredOutput: option.boolean(),
  extraBody: option.object(),
})

/**
 * Builds a Messages API body. System messages join the `system` parameter; tool results become
 * `tool_result` blocks of a user turn (with `is_error`; an error without content says so, since the API
 * refuses it empty); blank text (empty or whitespace only, which the API refuses) is left out; consecutive turns of one role are merged,
 * as the API expects. An assistant turn starts with its reasoning blocks as `thinking` /
 * `redacted_thinking` blocks, unchanged (extended thinking rejects a tool loop without them; a block
 * without a signature came from another provider and is left out). Tool arguments that are not a JSON
 * object are echoed as sent, under {@link RAW_ARGUMENTS_KEY}. The `cache_control` breakpoint goes on
 * the last block that belongs to the base conversation (never a thinking block), so a retry (base +
 * ephemeral tail) re-reads the cached prefix and the tail is never cached. `toolChoice` is sent as
 * `tool_choice` (`'required'` as `any`), only with tools; with extended thinking on (`extraBody.thinking`),
 * which accepts only `auto` and `none`, a choice that forces a tool is left out rather than refused
 * by the API. Tool call ids go as the API takes them, unique and of its characters (see `WireToolIds`).
 * Gate-only fields such as `ephemeral` never reach the wire, nor a lone surrogate, which the API refuses
 * (written U+FFFD, see `wellFormedText`; thinking blocks go unchanged, as signed).
 */
export function toAnthropicRequest(request: ModelRequest, settings: AnthropicRequestSettings): MessageCreateParamsNonStreaming {
  // Checked as gate.run checks it: a value that is no request is a TypeError naming the builder, never one from inside it.
  const problem = checkRequest(request)
  if (typeof problem === 'string') throw new TypeError(`toAnthropicRequest: ${problem}`)
  return anthropicBody(request, ANTHROPIC_REQUEST_SETTINGS.check(settings))
}

/** {@link toAnthropicRequest} on settings the provider built itself (checked once, when it was made). */
export function anthropicBody(request: ModelRequest, settings: AnthropicRequestSettings): MessageCreateParamsNonStreaming {
  const system: string[] = request.system !== undefined && request.system.trim() !== '' ? [request.system] : []
  const turns: WireTurn[] = []
  const ids = new WireToolIds()
  for (const m of request.messages) {
    if (m.role === 'system') {
      if (m.content.trim() !== '') system.push(m.content)
      continue
    }
    const role = m.role === 'assistant' ? 'assistant' : 'user'
    const blocks = toBlocks(m, ids).map((block) => ({ block, ephemeral: m.ephemeral === true }))
    if (blocks.length === 0) continue
    const last = turns[turns.length - 1]
    if (last !== undefined && last.role === role) last.blocks.push(...blocks)
    else turns.push({ role, blocks })
  }
  if (settings.cache) markCacheBreakpoint(turns)
  const messages: MessageParam[] = turns.map((t) => ({ role: t.role, content: t.blocks.map((b) => b.block) }))
  // Tools go with every request: a lone surrogate in a description (one cut inside an emoji) would fail each.
  const tools: Tool[] | undefined = request.tools?.map((t) => ({
    name: wellFormedText(t.name),
    ...(t.description !== undefined ? { description: wellFormedText(t.description) } : {}),
    input_schema: { type: 'object', ...(wellFormedJson(t.inputSchema) as Readonly<Record<string, unknown>>) },
  }))
  const format = outputFormat(request, settings.structuredOutput)
  return {
    ...settings.extraBody,
    model: settings.model,
    max_tokens: request.maxTokens ?? settings.maxTokens,
    ...(system.length > 0 ? { system: wellFormedText(system.join('\n\n')) } : {}),
    messages,
    ...(tools !== undefined && tools.length > 0 ? { tools, ...toolChoiceField(request.toolChoice, settings.extraBody) } : {}),
    ...(format !== undefined ? { output_config: { ...outputConfigOf(settings.extraBody), format } } : {}),
  }
}

/**
 * The structured-output format of a request: by its `outputMode` when a gate settled one (`native`:
 * the native schema; `json` and `prompt`: none, the Messages API having no JSON mode, so the schema
 * is in the system prompt), else `responseSchema` when the adapter's `structuredOutput` is on.
 */
function outputFormat(request: ModelRequest, structuredOutput: boolean): JSONOutputFormat | undefined {
  const mode = request.outputMode
  if (mode === 'json' || mode === 'prompt') return undefined
  const schema = mode === 'native' ? (request.nativeSchema ?? request.responseSchema) : structuredOutput ? request.responseSchema : undefined
  return schema === undefined ? undefined : { type: 'json_schema', schema: { ...schema } }
}

/** The `output_config` of the extra body (its `effort`), which the format joins rather than replaces. */
function outputConfigOf(extraBody: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const config = extraBody?.output_config
  return typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : {}
}

function toBlocks(m: Message, ids: WireToolIds): ContentBlockParam[] {
  if (m.role === 'tool') {
    const content = m.isError === true ? errorResultText(m.content) : wellFormedText(m.content)
    return [{ type: 'tool_result', tool_use_id: ids.answer(m.toolCallId ?? ''), content, ...(m.isError === true ? { is_error: true } : {}) }]
  }
  const blocks: ContentBlockParam[] = []
  if (m.role === 'assistant' && m.reasoning !== undefined) {
    for (const r of m.reasoning) {
      const block = thinkingBlock(r)
      if (block !== undefined) blocks.push(block)
    }
  }
  // The API rejects empty text blocks, and whitespace-only ones ("text content blocks must contain
  // non-whitespace text"): a blank answer kept in the history or the retry tail would fail every later request.
  if (m.content.trim() !== '') blocks.push({ type: 'text', text: wellFormedText(m.content) })
  if (m.role === 'assistant') {
    for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: ids.use(c.id), name: c.name, input: wellFormedJson(objectToolInput(c.args)) })
  }
  return blocks
}

function thinkingBlock(r: ReasoningBlock): ContentBlockParam | undefined {
  if (r.redactedData !== undefined) return { type: 'redacted_thinking', data: r.redactedData }
  if (r.signature !== undefined && r.signature !== '') return { type: 'thinking', thinking: r.text, signature: r.signature }
  return undefined
}

function markCacheBreakpoint(turns: WireTurn[]): void {
  for (let t = turns.length - 1; t >= 0; t--) {
    const blocks = (turns[t] as WireTurn).blocks
    for (let b = blocks.length - 1; b >= 0; b--) {
      const entry = blocks[b] as WireBlock
      // The API accepts no cache_control on thinking blocks.
      if (entry.ephemeral || entry.block.type === 'thinking' || entry.block.type === 'redacted_thinking') continue
      blocks[b] = { block: { ...entry.block, cache_control: { type: 'ephemeral' } } as ContentBlockParam, ephemeral: false }
      return
    }
  }
}

/**
 * The `tool_choice` field for a request's `toolChoice`: none when it has none, or when it forces a
 * tool while extended thinking is on (the API answers 400 to `any` and `tool` with thinking).
 */
function toolChoiceField(choice: ToolChoice | undefined, extraBody: Readonly<Record<string, unknown>> | undefined): { tool_choice?: WireToolChoice } {
  if (choice === undefined) return {}
  const forces = choice !== 'auto' && choice !== 'none'
  if (forces && thinkingOn(extraBody)) return {}
  return { tool_choice: toWireToolChoice(choice) }
}

/** Extended thinking is on in the body's extra fields (`thinking.type` other than `disabled`). */
function thinkingOn(extraBody: Readonly<Record<string, unknown>> | undefined): boolean {
  const thinking = extraBody?.thinking
  if (typeof thinking !== 'object' || thinking === null) return false
  const type = (thinking as { readonly type?: unknown }).type
  return type !== undefined && type !== 'disabled'
}

/** A request's `toolChoice` as the Messages API's `tool_choice`: `'required'` is `any`, a named tool is `tool`. */
function toWireToolChoice(choice: ToolChoice): WireToolChoice {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.tool }
  return { type: choice === 'required' ? 'any' : choice }
}
