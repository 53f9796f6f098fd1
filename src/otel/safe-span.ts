import {
  INVALID_SPAN_CONTEXT,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type Span,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
} from '@opentelemetry/api'

/** Called with what a tracer or a span threw; never throws. */
export type OnOtelError = (what: string, error: unknown) => void

/** Where spans come from: the tracer, and who hears what it (or a span of it) throws. */
export interface SpanSource {
  readonly tracer: Tracer
  readonly onError: OnOtelError
}

/**
 * A span behind the user-code boundary: a tracer or span that throws (or a tracer that returns no
 * span) is reported through `onError` and never reaches the run; `end()` is attempted once, whatever
 * happened before it.
 */
export class SafeSpan {
  readonly span: Span
  readonly #onError: OnOtelError
  #ended = false

  private constructor(span: Span, onError: OnOtelError) {
    this.span = span
    this.#onError = onError
  }

  /** Starts a span; a tracer that throws or answers no span gives a span that records nothing. */
  static start({ tracer, onError }: SpanSource, name: string, options: SpanOptions, parent: Context | undefined): SafeSpan {
    let span: unknown
    try {
      span = tracer.startSpan(name, options, parent)
    } catch (error) {
      onError('startSpan', error)
    }
    if (typeof span !== 'object' || span === null || typeof (span as Span).end !== 'function') {
      if (span !== undefined) onError('startSpan', new TypeError('the tracer returned no span'))
      span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT)
    }
    return new SafeSpan(span as Span, onError)
  }

  /**
   * Whether the span records (`span.isRecording()`). A span without the method, or whose method
   * throws (reported), counts as recording: its telemetry is attempted rather than lost.
   */
  isRecording(): boolean {
    try {
      return typeof this.span.isRecording !== 'function' || this.span.isRecording() !== false
    } catch (error) {
      this.#onError('span.isRecording', error)
      return true
    }
  }

  setAttribute(key: string, value: AttributeValue): void {
    this.#call('setAttribute', () => this.span.setAttribute(key, value))
  }

  setAttributes(attributes: Attributes): void {
    this.#call('setAttributes', () => this.span.setAttributes(attributes))
  }

  addEvent(name: string, attributes: Attributes): void {
    this.#call('addEvent', () => this.span.addEvent(name, attributes))
  }

  setStatus(status: SpanStatus): void {
    this.#call('setStatus', () => this.span.setStatus(status))
  }

  end(): void {
    if (this.#ended) return
    this.#ended = true
    this.#call('end', () => this.span.end())
  }

  #call(what: string, call: () => unknown): void {
    try {
      call()
    } catch (error) {
      this.#onError(`span.${what}`, error)
    }
  }
}
