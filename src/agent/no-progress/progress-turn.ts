import type { Usage } from '../../model/usage.ts'

/**
 * One thing a model turn did that progress is judged on: a tool call (with the error text its
 * result carried, when it failed), or the assistant's text.
 */
export type ProgressEvent =
  | {
      readonly kind: 'call'
      readonly tool: string
      /** The call's arguments: an object, or the JSON text a host delivers them as. */
      readonly args: unknown
      /** The error the model was answered with; absent when the call succeeded. */
      readonly error?: string
      /**
       * The call named a tool the forced change withheld: it was not run, and it extends the loop it
       * was withheld for (an error streak goes on as if it had failed the same way).
       */
      readonly withheld?: boolean
    }
  | { readonly kind: 'text'; readonly text: string }

/** One model turn as the detector sees it: what it did, in order, and what it cost (when known). */
export interface ProgressTurn {
  readonly events: readonly ProgressEvent[]
  /** The turn's tokens (its argument retries included); absent when the host cannot know them. */
  readonly usage?: Usage
  /** The turn's cost in USD; absent when unknown. */
  readonly costUsd?: number
}
