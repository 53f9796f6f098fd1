import type { Message } from '../model/message.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ToolCall } from '../model/tool-call.ts'
import type { FunctionCall } from './function-call.ts'

/** A logical tool call, settled: its `functionsCalled` entry, its tool result, and the call as persisted. */
export interface SettledToolCall {
  readonly entry: FunctionCall
  /** The `tool` message answering the call. */
  readonly result: Message
  /** The original call (same id) with its final arguments, for the persisted assistant turn. */
  readonly call: ToolCall
  /**
   * The model's prose reply to a retry (`llm_gave_up`): the seed lets it stand as the run's answer,
   * after the turn's tool results.
   */
  readonly answer?: ModelResponse
}
