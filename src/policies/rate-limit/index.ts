export { sharedRateLimit } from './shared-rate-limit.ts'
export type { SharedRateLimit, SharedRateLimitOptions } from './shared-rate-limit.ts'
export type { RateLimitPermit } from './rate-limit-permit.ts'
export { rateLimitLink } from './rate-limit-link.ts'
