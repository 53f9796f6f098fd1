import { ToolArgsRetry, type ToolArgsHost } from '../../agent/tool-args-retry.ts'
import type { ToolArgsVerdict } from '../../agent/tool-args-verdict.ts'
import type { EventTags } from '../../events/event-map.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import type { HostToolSettings } from '../host/host-tool-settings.ts'

const NO_TAGS: EventTags = Object.freeze({})

/** The call LangChain is about to run: its tool's name, id and arguments. */
export interface ToolCallToRun {
  readonly name: string
  readonly id?: string | undefined
  readonly args: unknown
}

/**
 * The verdict on a tool call's arguments where LangChain runs the tool: the argument loop's own
 * check (raw-input guards, the schema, then every guard) with no retry, since the model is not
 * asked here. The agent's state may hold arguments the model turn never settled (exhausted or
 * guard-rejected calls, a checkpoint resumed, another middleware's edit): none of them reaches the tool.
 */
export function checkToolCall(
  call: ToolCallToRun,
  input: CompiledSchema<unknown>,
  settings: HostToolSettings,
  signal: AbortSignal | undefined,
): Promise<ToolArgsVerdict> {
  const host: ToolArgsHost = {
    runId: '',
    tags: NO_TAGS,
    signal,
    // Never called: with no retry budget the loop stops at its first verdict.
    askAgain: () => Promise.reject(new Error('no model call where the tool runs')),
    // The model turn reported the failure already.
    validationFailed: () => undefined,
  }
  const spec = { name: call.name, input, guards: settings.toolGuards, maxRetries: 0 }
  return new ToolArgsRetry(host, settings, spec, { call: { id: call.id ?? '', name: call.name, args: call.args }, base: [] }).settle()
}
