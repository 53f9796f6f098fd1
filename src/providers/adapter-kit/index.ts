export { parseToolArgs } from './parse-tool-args.ts'
export { readHeader, retryAfterMs } from './retry-after.ts'
export type { HeaderSource } from './retry-after.ts'
export { toProviderError } from './to-provider-error.ts'
