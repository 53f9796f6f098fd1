/**
 * Where the default backoff draws its jitter: `Math.random`, unless a durable run seeded it for the
 * synchronous call that computes one delay (see {@link seededJitter}): a resumed run then waits what
 * its first execution waited, and reports the same `delayMs`.
 */
let seeded: (() => number) | undefined

/** A number in [0, 1): the seeded source while {@link seededJitter} runs, else `Math.random()`. */
export function jitterRandom(): number {
  return seeded === undefined ? Math.random() : seeded()
}

/**
 * Runs `fn` (synchronous: a rule's `delayMs`) with the backoff's jitter drawn from a generator seeded
 * by `seed` (a durable run's id and attempt), so the same seed gives the same delays on every replay.
 */
export function seededJitter<R>(seed: string, fn: () => R): R {
  const before = seeded
  seeded = mulberry32(fnv1a(seed))
  try {
    return fn()
  } finally {
    seeded = before
  }
}

/** FNV-1a, 32 bits, over the UTF-16 units of `text`. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: a small, well-mixed 32-bit generator; numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
