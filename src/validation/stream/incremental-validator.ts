import { Tokenizer, TokenType } from '@streamparser/json'
import type { ParsedTokenInfo } from '@streamparser/json'
import { isForbiddenKey } from '../json/forbidden-keys.ts'
import { renderPath } from '../schema/path.ts'
import { describeExpected } from './describe-expected.ts'
import { findJsonStart } from './json-start.ts'
import {
  itemView,
  jsonTypeOf,
  narrow,
  prefixAllowed,
  propertyView,
  requiredKeys,
  rootView,
  typeAllowed,
  unknownKey,
  valueAllowed,
  valueTypeAllowed,
  type JsonType,
  type SchemaView,
} from './schema-view.ts'
import type { Frame, Segments } from './stream-frame.ts'
import type { StreamViolation } from './stream-violation.ts'

const FORBIDDEN = 'forbidden key (a way into prototypes): remove it'

/** Where the validator is: looking for the JSON, inside it, done, or given up (no checks). */
export type IncrementalState = 'prelude' | 'active' | 'complete' | 'inactive'

/**
 * Validates a JSON answer while it streams and reports the first *definite* violation: a value
 * of a type the schema cannot accept, an unknown key under `additionalProperties: false`, an
 * object closed without a required key, a string that can no longer match its `enum` /
 * `const`, or a forbidden key (`__proto__`, or `constructor` holding a `prototype`), which never enters the
 * partial value. Only necessary conditions of the schema are checked, so a violation reported here is
 * one that validating the whole answer reports too (no false aborts).
 *
 * It engages only when the answer starts with an object or array (after whitespace and an
 * optional markdown fence); any other start, or JSON the tokenizer rejects, turns it inactive and
 * the whole answer is left to the normal validation. Tokens come from `@streamparser/json`.
 *
 * @example
 * const v = new IncrementalValidator({ type: 'object', properties: { n: { type: 'number' } } })
 * v.push('{"n": "x')  // { path: 'n', code: 'invalid_type', ... }
 */
export class IncrementalValidator {
  readonly #root: unknown
  #state: IncrementalState = 'prelude'
  #prelude = ''
  #consumed = 0
  #tokenizer: Tokenizer | undefined
  readonly #stack: Frame[] = []
  #value: unknown
  #violation: StreamViolation | undefined
  /** A root of the wrong type, reported once a JSON token follows it (`[Answer]` may be prose). */
  #pendingRoot: (() => void) | undefined
  #changed = false

  constructor(schema: unknown) {
    this.#root = schema
  }

  get state(): IncrementalState {
    return this.#state
  }

  /** The first definite violation, once found. */
  get violation(): StreamViolation | undefined {
    return this.#violation
  }

  /** Characters pushed so far. */
  get consumedChars(): number {
    return this.#consumed
  }

  /**
   * The value parsed so far: open objects and arrays hold their completed members and a string
   * in progress holds its prefix. Live: later pushes keep filling it in.
   */
  get partial(): unknown {
    return this.#value
  }

  /** True when the last push changed the partial value; reading resets it. */
  takeChanged(): boolean {
    const changed = this.#changed
    this.#changed = false
    return changed
  }

  /** Feeds the next chunk; returns the first violation (also once found earlier). */
  push(text: string): StreamViolation | undefined {
    this.#consumed += text.length
    if (this.#violation !== undefined || this.#state === 'complete' || this.#state === 'inactive') return this.#violation
    if (this.#state === 'prelude') {
      this.#prelude += text
      const start = this.#jsonStart()
      if (start === undefined) return undefined
      text = this.#prelude.slice(start)
      this.#prelude = ''
      this.#startTokenizer()
    }
    try {
      this.#tokenizer?.write(text)
    } catch {
      this.#stopTokenizer()
    }
    return this.#violation
  }

  /** Where the JSON starts in the prelude, `undefined` while undecided; may turn the validator inactive. */
  #jsonStart(): number | undefined {
    const start = findJsonStart(this.#prelude)
    if (start.found === 'undecided') return undefined
    this.#state = start.found === 'json' ? 'active' : 'inactive'
    return start.found === 'json' ? start.offset : undefined
  }

  #startTokenizer(): void {
    const tokenizer = new Tokenizer({ emitPartialTokens: true })
    tokenizer.onToken = (token) => this.#onToken(token)
    tokenizer.onError = () => this.#stopTokenizer()
    this.#tokenizer = tokenizer
  }

  #stopTokenizer(): void {
    // Text after a complete value (a closing fence, prose) is none of our business.
    if (this.#state === 'active') this.#state = this.#stack.length === 0 && this.#value !== undefined ? 'complete' : 'inactive'
    this.#tokenizer = undefined
  }

  #onToken(info: ParsedTokenInfo): void {
    if (this.#violation !== undefined || this.#state !== 'active') return
    if (this.#pendingRoot !== undefined) {
      // A partial literal may be a prose word (`[note]`); any other token shows the bracket opened JSON.
      const literal = info.token === TokenType.TRUE || info.token === TokenType.FALSE || info.token === TokenType.NULL
      if (info.partial !== true || !literal) this.#pendingRoot()
      return
    }
    const frame = this.#stack[this.#stack.length - 1]
    switch (info.token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET: {
        const t: JsonType = info.token === TokenType.LEFT_BRACE ? 'object' : 'array'
        const slot = this.#slot(frame)
        if (slot === undefined) return
        const container = t === 'object' ? {} : []
        // The offending value stays in the partial value, so it can be shown to the model.
        this.#place(frame, container)
        if (!typeAllowed(slot.view, t, this.#root)) {
          const fail = (): void => this.#fail(slot.segments, 'invalid_type', `expected ${describeExpected(slot.view)}, got ${t}`)
          // At the root the bracket may open prose before the real JSON, which the gate's extraction finds.
          if (frame === undefined) this.#pendingRoot = fail
          else fail()
          return
        }
        const view = narrow(slot.view, t, this.#root)
        this.#stack.push(
          t === 'object'
            ? { kind: 'object', value: container as Record<string, unknown>, view, segments: slot.segments, expectKey: true, key: undefined }
            : { kind: 'array', value: container as unknown[], view, segments: slot.segments, index: 0 },
        )
        return
      }
      case TokenType.RIGHT_BRACE: {
        if (frame?.kind !== 'object') return
        for (const key of requiredKeys(frame.view)) {
          if (!Object.hasOwn(frame.value, key))
            return this.#fail([...frame.segments, key], 'missing_required', 'the object was closed without this required field')
        }
        if (!valueAllowed(frame.view, frame.value, this.#root))
          return this.#fail(frame.segments, 'invalid_enum', 'the object matches none of the allowed values')
        return this.#close()
      }
      case TokenType.RIGHT_BRACKET: {
        if (frame?.kind !== 'array') return
        if (!valueAllowed(frame.view, frame.value, this.#root))
          return this.#fail(frame.segments, 'invalid_enum', 'the array matches none of the allowed values')
        return this.#close()
      }
      case TokenType.COMMA:
        if (frame?.kind === 'array') frame.index++
        else if (frame?.kind === 'object') frame.expectKey = true
        return
      case TokenType.COLON:
        return
      case TokenType.STRING:
        if (frame?.kind === 'object' && frame.expectKey) {
          if (info.partial === true) return
          const key = info.value as string
          if (isForbiddenKey(key)) return this.#fail([...frame.segments, key], 'forbidden_key', FORBIDDEN)
          // A `prototype` key inside the object a `constructor` key holds: that `constructor` is the forbidden key.
          if (key === 'prototype' && frame.segments[frame.segments.length - 1] === 'constructor') return this.#fail(frame.segments, 'forbidden_key', FORBIDDEN)
          if (unknownKey(frame.view, key)) return this.#fail([...frame.segments, key], 'unknown_property', 'unknown field')
          frame.key = key
          frame.expectKey = false
          return
        }
        return this.#primitive(frame, info)
      default:
        return this.#primitive(frame, info)
    }
  }

  #primitive(frame: Frame | undefined, info: ParsedTokenInfo): void {
    const slot = this.#slot(frame)
    if (slot === undefined) return
    const value = info.value
    if (info.partial === true) {
      if (info.token === TokenType.STRING) {
        this.#place(frame, value)
        if (!prefixAllowed(slot.view, value as string, this.#root)) {
          const code = typeAllowed(slot.view, 'string', this.#root) ? 'invalid_enum' : 'invalid_type'
          return this.#fail(
            slot.segments,
            code,
            code === 'invalid_type'
              ? `expected ${describeExpected(slot.view)}, got string`
              : `"${String(value)}…" can no longer match ${describeExpected(slot.view)}`,
          )
        }
      } else if (info.token === TokenType.NUMBER) {
        this.#place(frame, value)
        if (!typeAllowed(slot.view, 'number', this.#root))
          return this.#fail(slot.segments, 'invalid_type', `expected ${describeExpected(slot.view)}, got number`)
      }
      return
    }
    this.#place(frame, value)
    if (!valueAllowed(slot.view, value, this.#root)) {
      const t = jsonTypeOf(value)
      const typeOk = valueTypeAllowed(slot.view, value, this.#root)
      return this.#fail(
        slot.segments,
        typeOk ? 'invalid_enum' : 'invalid_type',
        typeOk ? `${JSON.stringify(value)} is not ${describeExpected(slot.view)}` : `expected ${describeExpected(slot.view)}, got ${t}`,
      )
    }
    if (frame === undefined) this.#state = 'complete'
    else if (frame.kind === 'object') frame.key = undefined
  }

  /** The schema view and path of the value that starts now, `undefined` when no value can start. */
  #slot(frame: Frame | undefined): { view: SchemaView; segments: Segments } | undefined {
    // The validator engages on an object or array, so the root slot only ever opens a container.
    if (frame === undefined) return this.#value === undefined ? { view: rootView(this.#root), segments: [] } : undefined
    if (frame.kind === 'array') return { view: itemView(frame.view, frame.index, this.#root), segments: [...frame.segments, frame.index] }
    if (frame.key === undefined) return undefined
    return { view: propertyView(frame.view, frame.key, this.#root), segments: [...frame.segments, frame.key] }
  }

  #place(frame: Frame | undefined, value: unknown): void {
    this.#changed = true
    if (frame === undefined) this.#value = value
    else if (frame.kind === 'array') frame.value[frame.index] = value
    else if (frame.key !== undefined) frame.value[frame.key] = value
  }

  #close(): void {
    this.#stack.pop()
    const parent = this.#stack[this.#stack.length - 1]
    if (parent === undefined) {
      this.#state = 'complete'
      this.#tokenizer = undefined
    } else if (parent.kind === 'object') parent.key = undefined
  }

  #fail(segments: Segments, code: StreamViolation['code'], reason: string): void {
    const path = renderPath(segments as never)
    this.#violation = { path, segments, code, reason: `${path === '' ? '(root)' : path}: ${reason}`, consumedChars: this.#consumed }
  }
}
