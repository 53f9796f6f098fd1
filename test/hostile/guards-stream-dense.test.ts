import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { piiGuard, secretsGuard } from '../../src/index.ts'
import { findPii } from '../../src/validation/guards/find-pii.ts'
import { type StreamRelease, streamWindow } from '../../src/validation/guards/index.ts'

// A contact list: an email every few dozen characters, so a redaction is nearly always inside the kept tail.
const contacts = (n: number) => Array.from({ length: n }, (_, i) => `contact user${i}@example.com or 4111 1111 1111 1111 today. `).join('')

async function streamed(text: string, sizes: readonly number[]) {
  const window = streamWindow([piiGuard(), secretsGuard()])
  const released: string[] = []
  let maxHeld = 0
  const take = (r: StreamRelease) => {
    if (r.action === 'release' && r.text !== '') released.push(r.text)
  }
  let at = 0
  for (let i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length] ?? 3
    take(await window.push(text.slice(at, at + size)))
    at += size
    maxHeld = Math.max(maxHeld, window.held)
  }
  const beforeEnd = released.join('').length
  take(await window.end())
  return { released, maxHeld, beforeEnd, lookback: window.lookback }
}

describe('streamWindow over text dense with matches', () => {
  it('holds back about its lookback, not the whole stream, and releases the rest before the end', async () => {
    const text = contacts(300)
    const { maxHeld, beforeEnd, lookback, released } = await streamed(text, [3])
    expect(maxHeld).toBeLessThan(lookback * 2)
    expect(beforeEnd).toBeGreaterThan(0)
    expect(released.join('')).not.toMatch(/@example\.com|4111/)
  })

  it('releases no chunk holding a matched span, and the whole equals the whole text screened, for any chunking', async () => {
    const text = contacts(40)
    const whole = (await streamed(text, [text.length])).released.join('')
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 12 }), async (sizes) => {
        const { released } = await streamed(text, sizes)
        for (const chunk of released) expect(findPii(chunk)).toEqual([])
        expect(released.join('')).toBe(whole)
      }),
      { numRuns: 40 },
    )
  })
})
