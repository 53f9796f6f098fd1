/**
 * The ways the simulated model gets an answer wrong on a first attempt.
 *
 * - `number-as-string`: a number property written as `"USD 50"`;
 * - `missing-required`: a required property left out;
 * - `extra-field`: an unknown property `note` where `additionalProperties` is `false`;
 * - `fenced-in-prose`: the JSON wrapped in prose and a ```json fence (noise an extractor accepts, not a failure);
 * - `datetime-tomorrow`: a `date-time` / `date` property written as `"tomorrow"`;
 * - `truncated-json`: the JSON cut in the middle, with stop reason `max_tokens`.
 *
 * Repeating the same mistake after feedback is the `ignoreFeedback` option, not a fault.
 */
export type SimulatedFault = 'number-as-string' | 'missing-required' | 'extra-field' | 'fenced-in-prose' | 'datetime-tomorrow' | 'truncated-json'

/** Faults that change the value itself (the others only change how it is written out). */
export type DataFault = Extract<SimulatedFault, 'number-as-string' | 'missing-required' | 'extra-field' | 'datetime-tomorrow'>

/** Faults that only change how the value is written out. */
export type FormatFault = Exclude<SimulatedFault, DataFault>

/** Every fault, in a stable order (the order random picks draw from). */
export const SIMULATED_FAULTS: readonly SimulatedFault[] = [
  'number-as-string',
  'missing-required',
  'extra-field',
  'fenced-in-prose',
  'datetime-tomorrow',
  'truncated-json',
]

/** Whether a fault changes the value rather than its text. */
export function isDataFault(fault: SimulatedFault): fault is DataFault {
  return fault !== 'fenced-in-prose' && fault !== 'truncated-json'
}
