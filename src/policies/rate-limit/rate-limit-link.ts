import { ProviderError } from '../../model/provider-error.ts'
import { libraryLink, type Link } from '../link.ts'
import type { RateLimitPermit } from './rate-limit-permit.ts'
import type { SharedRateLimit } from './shared-rate-limit.ts'

/**
 * The rate-limit policy: takes a slot of the provider's window before the rest of the attempt. A
 * full window fails the attempt at once (kind `rate-limit`, `retryAfterMs` = time to the window's
 * end) without calling the provider; a failing store lets the call through (the limit is advisory).
 */
export function rateLimitLink(rateLimit: SharedRateLimit): Link {
  return libraryLink(async function sharedRateLimit(ctx, next) {
    let permit: RateLimitPermit | undefined
    try {
      permit = await rateLimit.acquire(ctx.provider)
    } catch {
      permit = undefined
    }
    if (permit !== undefined && !permit.allowed) {
      throw new ProviderError(
        `the shared rate limit "${rateLimit.key}" (${rateLimit.limit} calls per ${rateLimit.windowMs} ms) of provider "${ctx.provider}" is reached`,
        {
          kind: 'rate-limit',
          code: 'shared-rate-limit',
          provider: ctx.provider,
          retryAfterMs: permit.retryAfterMs,
        },
      )
    }
    return next(ctx)
  })
}
