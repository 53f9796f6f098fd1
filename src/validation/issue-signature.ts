import { assertArray, assertString } from '../model/argument-checks.ts'
import type { ValidationIssue } from './issue.ts'

const FNV_PRIME = 0x01000193
const OTHER_PRIME = 0x01000197

/**
 * A short digest of a failure's *full* issue set (stage, parse error, and every issue's code, path,
 * expected, received and message, in order), so that two failures compare equal only when they
 * report exactly the same problems, however many there are and however long their keys. The
 * one-line summary cannot do this: it names the first few issues and cuts long paths.
 *
 * @example
 * issueSignature('schema-validate', issues) // 'schema-validate/9/5f0c2a1be47d9310'
 */
export function issueSignature(stage: string, issues: readonly ValidationIssue[], parseError?: string): string {
  assertString(stage, 'issueSignature: stage')
  assertArray(issues, 'issueSignature: issues', 'an array of validation issues')
  // Two independent 32-bit FNV-1a lanes: a 64-bit digest, collisions out of reach of chance.
  let a = 0x811c9dc5
  let b = 0x050c5d1f
  const mix = (unit: number): void => {
    a = Math.imul(a ^ unit, FNV_PRIME)
    b = Math.imul(b ^ unit, OTHER_PRIME)
  }
  const feed = (text: string): void => {
    // The length first, so that ('ab', 'c') and ('a', 'bc') differ.
    mix(text.length & 0xffff)
    mix(text.length >>> 16)
    for (let i = 0; i < text.length; i++) mix(text.charCodeAt(i))
  }
  feed(parseError ?? '')
  for (const issue of issues) {
    feed(issue.code)
    feed(issue.path)
    feed(issue.expected ?? '')
    feed(issue.received ?? '')
    feed(issue.message)
  }
  return `${stage}/${issues.length}/${hex(a)}${hex(b)}`
}

function hex(lane: number): string {
  return (lane >>> 0).toString(16).padStart(8, '0')
}
