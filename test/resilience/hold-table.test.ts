import { describe, expect, it } from 'vitest'
import { HoldTable } from '../../src/store/hold-table.ts'

/** The plain model the table must agree with: a Map of id to hold, walked in full every time. */
class ModelHolds {
  readonly byId = new Map<string, { amount: number; expiresAt: number }>()
  liveSum(t: number): number {
    let sum = 0
    for (const [id, h] of this.byId) {
      if (h.expiresAt <= t) this.byId.delete(id)
      else sum += h.amount
    }
    return sum
  }
  put(id: string, amount: number, expiresAt: number): void {
    this.byId.set(id, { amount, expiresAt })
  }
  release(id: string): void {
    this.byId.delete(id)
  }
}

// A small seeded generator, so a failure replays.
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}

describe('HoldTable', () => {
  it('sums live holds, replaces a hold of the same id and forgets a released one', () => {
    const table = new HoldTable()
    table.put('a', 1, 100)
    table.put('b', 2, 100)
    table.put('a', 5, 100)
    expect(table.liveSum(0)).toBe(7)
    table.release('a')
    expect(table.liveSum(0)).toBe(2)
    table.release('a')
    table.release('b')
    expect(table.size).toBe(0)
    expect(table.liveSum(0)).toBe(0)
  })

  it('drops expired holds, earliest first, without touching the live ones', () => {
    const table = new HoldTable()
    table.put('a', 1, 10)
    table.put('b', 2, 20)
    table.put('c', 4, 30)
    expect(table.liveSum(10)).toBe(6)
    expect(table.nextExpiry).toBe(20)
    expect(table.liveSum(25)).toBe(4)
    expect(table.size).toBe(1)
  })

  it('agrees with a plain Map of holds through bursts of many concurrent holds', () => {
    const next = random(19)
    for (const width of [1, 3, 9, 40, 200]) {
      const table = new HoldTable()
      const model = new ModelHolds()
      const ids: string[] = []
      let t = 0
      for (let step = 0; step < 2_000; step++) {
        const roll = next()
        if (roll < 0.45 && ids.length < width) {
          // A fresh string each time: ids are compared by value, not only by identity.
          const id = `id:${Math.floor(next() * width * 2)}`
          const amount = Math.floor(next() * 100) / 4
          const expiresAt = t + 1 + Math.floor(next() * 50)
          table.put(id, amount, expiresAt)
          model.put(id, amount, expiresAt)
          ids.push(id)
        } else if (roll < 0.9 && ids.length > 0) {
          const id = ids.splice(Math.floor(next() * ids.length), 1)[0] as string
          table.release(`${id}`)
          model.release(id)
        } else t += Math.floor(next() * 10)
        expect(table.liveSum(t)).toBe(model.liveSum(t))
        expect(table.size).toBe(model.byId.size)
      }
    }
  })
})
