import { ProviderError } from '../../model/provider-error.ts'
import type { RateLimitPermit } from './rate-limit-permit.ts'
import type { SharedRateLimit } from './shared-rate-limit.ts'

/**
 * Takes a slot of `provider`'s window before a call: a full window is the attempt's error (kind
 * `rate-limit`, with the time to the window's end), a failing store lets the call through.
 */
export async function rateLimitError(rateLimit: SharedRateLimit, provider: string): Promise<ProviderError | undefined> {
  let permit: RateLimitPermit
  try {
    permit = await rateLimit.acquire(provider)
  } catch {
    return undefined
  }
  if (permit.allowed) return undefined
  return new ProviderError(`the shared rate limit "${rateLimit.key}" (${rateLimit.limit} calls per ${rateLimit.windowMs} ms) of provider "${provider}" is reached`, {
    kind: 'rate-limit',
    code: 'shared-rate-limit',
    provider,
    retryAfterMs: permit.retryAfterMs,
  })
}
