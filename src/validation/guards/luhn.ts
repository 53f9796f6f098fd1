import { assertString } from '../../model/argument-checks.ts'

/**
 * The Luhn checksum of a card number (digits only): true when it holds. Card numbers carry it;
 * an order number, a timestamp or a phone number of the same length passes it one time in ten.
 *
 * @example
 * luhnValid('4111111111111111') // true
 * luhnValid('4111111111111112') // false
 */
export function luhnValid(digits: string): boolean {
  assertString(digits, 'luhnValid: digits')
  if (!/^\d+$/.test(digits)) return false
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}
