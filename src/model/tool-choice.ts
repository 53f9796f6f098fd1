/**
 * Whether, and which, tool the model must call: `'auto'` lets it choose (the providers' default),
 * `'none'` forbids tools, `'required'` asks for some tool, `{ tool }` for that tool (one of the
 * request's `tools`). Every adapter maps it to its provider's own field (OpenAI's and the AI SDK's
 * `tool_choice` / `toolChoice`, Anthropic's `tool_choice` with `any` for `'required'`).
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly tool: string }
