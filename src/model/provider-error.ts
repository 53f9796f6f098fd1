import { assertString } from './argument-checks.ts'
import { hasBrand } from './brand.ts'
import { rejectionOfCodes } from './classify-rejection.ts'
import { kindOfStatus } from './classify-shape.ts'
import { ERROR_KINDS, type ErrorKind } from './error-kind.ts'
import { MAX_TIMER_MS, option, optionsContract } from './options-contract.ts'

const BRAND = Symbol.for('reliability-gate.ProviderError')

/**
 * Options of a {@link ProviderError}: a `kind`, or a `status` it is derived from (as
 * `classifyError` reads one: 429 `rate-limit`, 503 `http-5xx`, ...), or both (`kind` wins).
 */
export type ProviderErrorOptions = ProviderErrorFields & ({ readonly kind: ErrorKind } | { readonly kind?: ErrorKind; readonly status: number })

/** The fields of {@link ProviderErrorOptions} besides the `kind` / `status` choice. */
export interface ProviderErrorFields {
  readonly status?: number
  readonly code?: string
  /**
   * How long the provider asked us to wait, from `retry-after` / `retry-after-ms`: 0 to 2^31-1 ms (a
   * longer wait cannot be a timer: Node fires one after 1 ms; the adapters cap a longer header at that).
   */
  readonly retryAfterMs?: number
  readonly provider?: string
  readonly cause?: unknown
}

/**
 * The options contract of {@link ProviderError}: a misspelt key (`knd`) is refused with "did you
 * mean"; `kind` itself is checked beside it, with the list of kinds.
 */
const PROVIDER_ERROR = optionsContract<ProviderErrorOptions>('ProviderError', {
  kind: option.any(),
  status: option.integer(0, 999),
  code: option.string(),
  retryAfterMs: option.where(`a number of milliseconds from 0 to ${MAX_TIMER_MS}`, (v) => typeof v === 'number' && v >= 0 && v <= MAX_TIMER_MS),
  provider: option.string(),
  cause: option.any(),
})

/**
 * A provider failure already classified into an {@link ErrorKind}. Adapters throw it so the gate does
 * not have to guess from messages; plain errors are classified by the gate.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError'
  readonly kind: ErrorKind
  readonly status: number | undefined
  readonly code: string | undefined
  readonly retryAfterMs: number | undefined
  readonly provider: string | undefined
  readonly [BRAND] = true

  /**
   * Without options, the kind is `unknown`; without a `kind`, the kind `status` says (as
   * `classifyError` reads it: its status, then its `code`, else `unknown`). A `kind` that is no
   * {@link ErrorKind}, neither `kind` nor `status`, or an option this error does not take, throws a
   * `TypeError`; a `status` or `retryAfterMs` out of range a `RangeError`.
   */
  constructor(message: string, options: ProviderErrorOptions = UNKNOWN) {
    assertString(message, 'ProviderError: message')
    if (typeof options === 'object' && options !== null && options !== UNKNOWN) PROVIDER_ERROR.check(options)
    const kind = typeof options === 'object' && options !== null ? kindOf(options) : undefined
    if (kind === undefined) {
      throw new TypeError(`ProviderError: options.kind must be one of ${ERROR_KINDS.join(', ')} (or options.status given), got ${kindShown(options)}`)
    }
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.kind = kind
    this.status = options.status
    this.code = options.code
    this.retryAfterMs = options.retryAfterMs
    this.provider = options.provider
  }
}

const UNKNOWN: ProviderErrorOptions = Object.freeze({ kind: 'unknown' })

/** The kind given, else the one its status (then code) says; `undefined` when neither can make one. */
function kindOf(options: ProviderErrorOptions): ErrorKind | undefined {
  if (options.kind !== undefined || options.status === undefined) {
    return (ERROR_KINDS as readonly unknown[]).includes(options.kind) ? options.kind : undefined
  }
  return kindOfStatus(options.status) ?? rejectionOfCodes({ code: options.code }) ?? 'unknown'
}

function kindShown(options: unknown): string {
  if (typeof options !== 'object' || options === null) return `options ${options === null ? 'null' : typeof options}`
  const kind = (options as { kind?: unknown }).kind
  return typeof kind === 'string' ? JSON.stringify(kind) : String(kind)
}

/** Brand check that works across realms and duplicate package copies. */
export function isProviderError(value: unknown): value is ProviderError {
  return hasBrand(value, BRAND)
}
