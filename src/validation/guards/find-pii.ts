import { assertArray, assertString } from '../../model/argument-checks.ts'
import { scanFolded } from './scan-folded.ts'
import { luhnValid } from './luhn.ts'
import { matchesOf, type PatternMatch, type PatternRule, withoutOverlaps } from './pattern-match.ts'

// 13 to 19 digits, single spaces or dashes between groups, not inside a longer run of digits.
const CARD: PatternRule = {
  kind: 'card',
  rule: 'luhn-card',
  pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
  accept: (m) => luhnValid(m.replace(/[ -]/g, '')),
}
// Local part and domain bounded (RFC 5321 lengths): no unbounded backtracking.
const EMAIL: PatternRule = {
  kind: 'email',
  rule: 'email',
  pattern: /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![\w-])/g,
}
// E.164 (+ and 8 to 15 digits) or a NANP-style number with separators: (415) 555-0132, 415-555-0132, +44 20 7946 0958.
const PHONE: PatternRule = {
  kind: 'phone',
  rule: 'phone',
  pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,4}(?![\w-])|(?<![\w+])\+\d{8,15}(?!\w)/g,
  accept: (m) => digitCount(m) >= 8 && digitCount(m) <= 15,
}

/** Which kinds of personal data {@link findPii} looks for. @default all */
export type PiiKind = 'card' | 'email' | 'phone'

/**
 * Personal data in a text: card numbers (13 to 19 digits, spaced or dashed, that pass the Luhn
 * check), email addresses and phone numbers (E.164, or grouped with separators), read through
 * `scanFolded` (also with fullwidth forms as plain ones and zero-width characters left out). Offsets are the
 * text's own; a card's digits are never also reported as a phone number. Pure, linear in the text
 * (scanned up to its first million characters).
 *
 * @example
 * findPii('card 4111 1111 1111 1111, mail ana@example.com') // [{ kind: 'card', ... }, { kind: 'email', ... }]
 */
export function findPii(text: string, kinds: readonly PiiKind[] = ['card', 'email', 'phone']): PatternMatch[] {
  assertString(text, 'findPii: text')
  assertArray(kinds, 'findPii: kinds', "an array of 'card' | 'email' | 'phone'")
  return scanFolded(text, (scanned) => {
    const found: PatternMatch[] = []
    if (kinds.includes('card')) found.push(...matchesOf(scanned, CARD))
    if (kinds.includes('email')) found.push(...matchesOf(scanned, EMAIL))
    if (kinds.includes('phone')) found.push(...matchesOf(scanned, PHONE))
    return withoutOverlaps(found)
  })
}

function digitCount(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) n++
  return n
}
