import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { freezePayload } from '../../src/events/frozen-payload.ts'

/** Every plain object and array reachable from `value`. */
function reachable(value: unknown, out: object[] = [], seen = new Set<object>()): object[] {
  if (typeof value !== 'object' || value === null || seen.has(value)) return out
  seen.add(value)
  out.push(value)
  for (const key of Object.keys(value)) reachable((value as Record<string, unknown>)[key], out, seen)
  return out
}

const json = fc.jsonValue({ maxDepth: 5 })

describe('freezePayload', () => {
  it('freezes everything a listener can reach, and copies the caller-owned fields without touching them', () => {
    fc.assert(
      fc.property(json, json, json, (response, metadata, result) => {
        const originalMetadata = structuredClone(metadata)
        const originalResult = structuredClone(result)
        const payload = freezePayload({ runId: 'r', response, metadata, result, error: { mutable: true } })
        const error = payload.error
        expect(Object.isFrozen(payload)).toBe(true)
        for (const part of [payload.response, payload.metadata, payload.result]) for (const o of reachable(part)) expect(Object.isFrozen(o)).toBe(true)
        // The caller's own objects: equal copies on the payload, the originals unfrozen and unchanged.
        expect(payload.metadata).toEqual(originalMetadata)
        expect(payload.result).toEqual(originalResult)
        for (const o of reachable(metadata)) expect(Object.isFrozen(o)).toBe(false)
        expect(metadata).toEqual(originalMetadata)
        expect(Object.isFrozen(error)).toBe(false)
      }),
      { numRuns: 200 },
    )
  })

  it('passes a frozen copy on as it is, and copies the caller’s metadata as it is at each event (never a copy remembered from before an edit)', () => {
    const metadata = { tenant: 'acme', tags: ['a'] }
    const a = freezePayload({ runId: 'r', metadata })
    expect(freezePayload({ runId: 'r', metadata: a.metadata }).metadata).toBe(a.metadata)
    metadata.tenant = 'globex'
    expect(freezePayload({ runId: 'r', metadata }).metadata).toEqual({ tenant: 'globex', tags: ['a'] })
    expect(a.metadata).toEqual({ tenant: 'acme', tags: ['a'] })
  })

  it('keeps a cycle a cycle, and leaves class instances alone', () => {
    const cyclic: Record<string, unknown> = { name: 'x' }
    cyclic.self = cyclic
    const signal = new AbortController().signal
    const payload = freezePayload({ runId: 'r', metadata: cyclic, request: { signal, messages: [] } })
    const copy = payload.metadata as Record<string, unknown>
    expect(copy.self).toBe(copy)
    expect(Object.isFrozen(signal)).toBe(false)
    expect(Object.isFrozen(payload.request.messages)).toBe(true)
  })
})
