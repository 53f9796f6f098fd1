import { ProviderError } from '../../model/provider-error.ts'
import { type Admission, Refused } from '../admission.ts'
import { type AdvisoryFallback, askAdvisory, ignoreStoreError, type OnStoreError } from '../advisory-store.ts'
import type { RateLimitPermit } from './rate-limit-permit.ts'
import type { SharedRateLimit } from './shared-rate-limit.ts'
import { longestWait } from '../../model/retry-after.ts'

const ADMITTED = true

/**
 * The rate-limit policy: takes a slot of the provider's window before the call. A full window fails
 * the attempt at once (kind `rate-limit`, `retryAfterMs` = time to the window's end) without calling
 * the provider; a failing store lets the call through (the limit is advisory). A slot is a call
 * made, so it is not given back when another policy refuses the attempt.
 */
export function rateLimitAdmission(rateLimit: SharedRateLimit, onStoreError: OnStoreError = ignoreStoreError): Admission<typeof ADMITTED> {
  const fallback: AdvisoryFallback<typeof ADMITTED> = { through: ADMITTED, onStoreError }
  const verdict = (permit: RateLimitPermit, provider: string): typeof ADMITTED | Refused =>
    permit.allowed
      ? ADMITTED
      : new Refused(
          new ProviderError(
            `the shared rate limit "${rateLimit.key}" (${rateLimit.limit} calls per ${rateLimit.windowMs} ms) of provider "${provider}" is reached`,
            { kind: 'rate-limit', code: 'shared-rate-limit', provider, retryAfterMs: longestWait(permit.retryAfterMs) },
          ),
        )
  return {
    name: 'sharedRateLimit',
    admit(ctx) {
      return askAdvisory(
        () => rateLimit.acquire(ctx.provider),
        (permit: RateLimitPermit) => verdict(permit, ctx.provider),
        fallback,
        ctx,
      )
    },
  }
}
