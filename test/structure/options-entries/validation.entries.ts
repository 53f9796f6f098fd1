import type { OptionsEntry } from './entry.ts'

/** The validation building blocks' options objects (`reliability-gate/validation`). */
export const entries: readonly OptionsEntry[] = []
