export { sharedRateLimit } from './shared-rate-limit.ts'
export type { SharedRateLimit, SharedRateLimitOptions } from './shared-rate-limit.ts'
export type { RateLimitPermit } from './rate-limit-permit.ts'
export { rateLimitAdmission } from './rate-limit-admission.ts'
