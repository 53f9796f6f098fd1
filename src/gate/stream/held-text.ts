import type { GuardRecord } from '../../validation/guards/index.ts'
import { type ContentGuard, type StreamRelease, type StreamWindow, streamWindow } from '../../validation/guards/index.ts'

/** How one attempt's text is screened before it reaches a stream's consumer. */
export interface HeldTextSettings {
  readonly guards: readonly ContentGuard[]
  readonly signal: AbortSignal | undefined
  readonly report: ((record: GuardRecord) => void) | undefined
  /** Hands on text the guards released, in order. */
  readonly deliver: (text: string) => void
}

/**
 * One attempt's text behind the `stream` guards (`streamWindow`): each piece is pushed as it
 * comes, and only what the window releases (its lookback past every piece, redactions applied) is
 * handed to `deliver`, in order. After a stop (block, escalate, re-ask) nothing more is delivered.
 * `end()` settles the held tail and answers the whole released text: what the consumer received,
 * and what the gate then validates as the answer.
 */
export class HeldText {
  readonly #window: StreamWindow
  readonly #deliver: (text: string) => void
  #queue: Promise<void> = Promise.resolve()
  #released = ''
  #stop: Exclude<StreamRelease, { readonly action: 'release' }> | undefined = undefined
  #abandoned = false

  constructor(settings: HeldTextSettings) {
    this.#window = streamWindow(settings.guards, { signal: settings.signal, report: settings.report })
    this.#deliver = settings.deliver
  }

  /** The guards' stop, once it came (read it after `end()` for the last word). */
  get stop(): Exclude<StreamRelease, { readonly action: 'release' }> | undefined {
    return this.#stop
  }

  /** Pushes a piece (the window screens pieces one at a time, in this order). */
  push(piece: string): void {
    this.#queue = this.#queue.then(async () => {
      if (this.#stop === undefined) this.#take(await this.#window.push(piece))
    })
  }

  /**
   * The attempt failed (its stream broke off): nothing it still holds is delivered, not even what a
   * screening under way would release, so no text of a failed attempt reaches the consumer after it
   * failed (between or after a retry's).
   */
  abandon(): void {
    this.#abandoned = true
  }

  /** The stream ended: the held tail screened and delivered; the whole released text. */
  async end(): Promise<string> {
    await this.#queue
    if (this.#stop === undefined) this.#take(await this.#window.end())
    return this.#released
  }

  #take(release: StreamRelease): void {
    if (this.#abandoned) return
    if (release.action !== 'release') {
      this.#stop = release
      return
    }
    if (release.text === '') return
    this.#released += release.text
    this.#deliver(release.text)
  }
}
