// Objects kept for their hidden class only: each holds no value of anyone's.
const kept: object[] = []

/**
 * Keeps `witness` alive for good, so that V8 keeps its hidden class. A full collection drops a hidden
 * class that no live object has (a class's instances are reached from its initial one only by weak
 * transitions) and deoptimises every function whose optimised code embedded it: between two runs
 * none of a run's objects is alive, so after each full GC the whole pipeline ran in slower code
 * until optimised again (measured: the next ~30,000 runs 3-4x slower). A witness must hold nothing
 * of a caller's: make it from placeholders.
 */
export function keepShape(witness: object): void {
  kept.push(witness)
}

/**
 * Lets go of every witness: `bench/arrangements.ts` measures what the witnesses buy by running the
 * same code after a full collection with and without them. Never called by the library. @internal
 */
export function dropKeptShapes(): void {
  kept.length = 0
}
