/** A small seeded pseudo-random source: the simulator's only source of variety, so runs replay exactly. */
export interface Random {
  /** A float in [0, 1). */
  next(): number
  /** An integer in [min, max] (inclusive); `min` when the range is empty. */
  int(min: number, max: number): number
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T
}

/** Mulberry32: tiny, fast and good enough to vary test data (not for anything secret). */
export function createRandom(seed: number): Random {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => (max <= min ? min : min + Math.floor(next() * (max - min + 1)))
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T
  return { next, int, pick }
}

/** FNV-1a hash of a string, 32 bits. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** Combines seeds so that different purposes (values, faults, tools) draw independent streams. */
export function mixSeed(...parts: readonly number[]): number {
  let hash = 0x9e3779b9
  for (const part of parts) {
    hash ^= part >>> 0
    hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b)
    hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35)
    hash ^= hash >>> 16
  }
  return hash >>> 0
}
