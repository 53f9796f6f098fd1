import { assertString } from '../../model/argument-checks.ts'
import { typeName } from '../../model/describe-value.ts'
import { isRecord } from '../../model/is-record.ts'
import { messageOf } from '../../model/message-of.ts'
import type { TraceRecord } from '../trace-record.ts'

/** A line of a trace file the viewer could not use, with its 1-based number and why. */
export interface SkippedLine {
  readonly line: number
  readonly reason: string
}

/** A trace file read back: its records, the line number of each, and the lines skipped. */
export interface ParsedTrace {
  readonly records: readonly TraceRecord[]
  /** `lines[i]` is the 1-based line number of `records[i]`. */
  readonly lines: readonly number[]
  readonly skipped: readonly SkippedLine[]
}

/**
 * Reads a JSON Lines trace: each line that is a JSON object with a string `type` and `runId` is a
 * record; every other non-blank line is skipped and named with its number and why (a trace cut short
 * by a crash still opens, and says where it was cut).
 */
export function readTrace(text: string): ParsedTrace {
  assertString(text, 'readTrace: text')
  const records: TraceRecord[] = []
  const lines: number[] = []
  const skipped: SkippedLine[] = []
  const all = text.split('\n')
  for (const [i, line] of all.entries()) {
    if (line.trim() === '') continue
    const reason = recordOrReason(line)
    if (typeof reason === 'string') skipped.push({ line: i + 1, reason })
    else {
      records.push(reason)
      lines.push(i + 1)
    }
  }
  return { records, lines, skipped }
}

/** The records of a JSON Lines trace (see {@link readTrace}, which also says which lines were skipped). */
export function parseTrace(text: string): TraceRecord[] {
  assertString(text, 'parseTrace: text')
  return [...readTrace(text).records]
}

function recordOrReason(line: string): TraceRecord | string {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    return `not JSON (${messageOf(error).slice(0, 120)})`
  }
  if (!isRecord(value)) return `not a JSON object (${typeName(value)})`
  if (typeof value.type !== 'string') return value.type === undefined ? 'no "type"' : `"type" is ${typeName(value.type)}, expected a string`
  if (typeof value.runId !== 'string') return value.runId === undefined ? 'no "runId"' : `"runId" is ${typeName(value.runId)}, expected a string`
  return value as TraceRecord
}
