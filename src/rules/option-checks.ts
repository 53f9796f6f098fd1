import { option, type OptionCheck } from '../model/options-contract.ts'

/*
 * Numeric option checks worded as the library's numeric checks have always been
 * (`<label>: <key> must be a positive integer, got 0`), for options contracts of this layer.
 */

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/** An integer, 1 or above. */
export const positiveInteger: OptionCheck = option.where('a positive integer', (v) => Number.isSafeInteger(v) && (v as number) >= 1)
/** An integer, 0 or above. */
export const nonNegativeInteger: OptionCheck = option.where('a non-negative integer', (v) => Number.isSafeInteger(v) && (v as number) >= 0)
/** A finite number above 0. */
export const positiveNumber: OptionCheck = option.where('a positive number', (v) => finite(v) && v > 0)
/** A finite number, 0 or above. */
export const nonNegativeNumber: OptionCheck = option.where('a non-negative number', (v) => finite(v) && v >= 0)
