export { findInstructions } from './find-instructions.ts'
export { findPii, type PiiKind } from './find-pii.ts'
export { findSecrets } from './find-secrets.ts'
export { luhnValid } from './luhn.ts'
export { normalizeForScan } from './normalize-for-scan.ts'
export type { PatternKind, PatternMatch } from './pattern-match.ts'
export { redactMatches, type ScreenOptions, type ScreenVerdict, screenToolResult } from './screen-tool-result.ts'
export {
  assertContentGuards,
  type ContentCheck,
  type ContentGuard,
  type ContentGuardOptions,
  type ContentVerdict,
  contentGuard,
  GUARD_SURFACES,
  type GuardInput,
  type GuardSurface,
  type ToolTrust,
} from './content-guard.ts'
export { type GuardFailure, type GuardOutcome, type GuardRecord, type GuardRunState, runContentGuards } from './run-content-guards.ts'
export { instructionGuard, type PiiGuardOptions, piiGuard, type SecretsGuardOptions, type ShippedGuardOptions, secretsGuard } from './shipped-guards.ts'
export { type StreamRelease, type StreamWindow, type StreamWindowOptions, streamWindow } from './stream-window.ts'
