import { describe, expect, it } from 'vitest'
import { newRunId } from '../../src/events/run-id.ts'

describe('run ids', () => {
  it('end with the run counter in base 36, written as toString(36) writes it, across every digit boundary', () => {
    const first = newRunId()
    const prefix = first.slice(0, first.lastIndexOf('_') + 1)
    expect(prefix).toMatch(/^run_[0-9a-z]{6}_$/)
    let previous = Number.parseInt(first.slice(prefix.length), 36)
    // Past 36, 1,296 (two table digits) and 46,656 (three digits: a new head every 1,296 runs).
    for (let i = 0; i < 60_000; i++) {
      const id = newRunId()
      expect(id.startsWith(prefix)).toBe(true)
      const expected = (previous + 1).toString(36)
      if (id.slice(prefix.length) !== expected) expect(id).toBe(prefix + expected)
      previous++
    }
    expect(previous).toBeGreaterThan(46_656 + 1_296)
  })

  it('are unique', () => {
    const ids = new Set(Array.from({ length: 5_000 }, newRunId))
    expect(ids.size).toBe(5_000)
  })
})
