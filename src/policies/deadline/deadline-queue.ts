/**
 * One timer per deadline length instead of one per attempt. Deadlines of the same length are due in
 * the order they were set, so each length keeps a queue (a doubly linked list: a deadline met is
 * unlinked at once) with one timer armed for its head. Setting and clearing a deadline that does not
 * fire costs an object and two links, where a timer of its own costs a `setTimeout` and a
 * `clearTimeout` (BENCHMARKS: `timeoutMs` added 6 µs per attempt with a timer each).
 * `Date.now()` is the clock: fake timers move it together with `setTimeout`. A wall clock set back
 * makes the deadlines set before it due at once, never late by the jump.
 */
interface Entry {
  readonly queue: Queue
  readonly at: number
  readonly fire: (target: never) => void
  readonly target: unknown
  prev: Entry | undefined
  next: Entry | undefined
}

interface Queue {
  head: Entry | undefined
  tail: Entry | undefined
  timer: ReturnType<typeof setTimeout> | undefined
}

const queues = new Map<number, Queue>()

/** A deadline set by {@link scheduleDeadline}, to give to {@link cancelDeadline}. */
export type DeadlineEntry = Entry

/**
 * Calls `fire(target)` once `ms` have passed, unless the entry returned is given to
 * {@link cancelDeadline} first (a shared `fire` and its target: no closure per deadline).
 */
export function scheduleDeadline<T>(ms: number, fire: (target: T) => void, target: T): DeadlineEntry {
  let queue = queues.get(ms)
  if (queue === undefined) {
    queue = { head: undefined, tail: undefined, timer: undefined }
    queues.set(ms, queue)
  }
  const entry: Entry = { queue, at: Date.now() + ms, fire, target, prev: queue.tail, next: undefined }
  if (queue.tail === undefined) queue.head = entry
  else queue.tail.next = entry
  queue.tail = entry
  if (queue.timer === undefined) arm(queue, ms)
  else if (queue.head === entry) keepAlive(queue.timer, true)
  return entry
}

/** Clears a deadline that has not fired (nothing happens for one that fired or was cleared). */
export function cancelDeadline(entry: DeadlineEntry): void {
  const q = entry.queue
  unlink(q, entry)
  // A queue with nothing due keeps its timer, but never keeps the process alive for it.
  if (q.head === undefined && q.timer !== undefined) keepAlive(q.timer, false)
}

function arm(queue: Queue, ms: number): void {
  const head = queue.head
  if (head === undefined) {
    queue.timer = undefined
    return
  }
  // Never longer than a deadline's own length: a head due further off than that was set before the wall clock went back.
  queue.timer = setTimeout(() => due(queue, ms), Math.min(ms, Math.max(0, head.at - Date.now())))
}

function due(queue: Queue, ms: number): void {
  const now = Date.now()
  const fired: Entry[] = []
  // A deadline set `ms` ago at most is never due later than `ms` from now: one that is was set before the wall clock
  // went back (NTP, a resumed VM), and is due now rather than after the jump (an attempt would hang that long).
  for (let e = queue.head; e !== undefined && (e.at <= now || e.at - now > ms); e = e.next) fired.push(e)
  for (const e of fired) unlink(queue, e)
  arm(queue, ms)
  for (const e of fired) {
    try {
      e.fire(e.target as never)
    } catch {
      // A deadline's own reaction never throws; nothing else may stop the others.
    }
  }
}

function unlink(queue: Queue, entry: Entry): void {
  if (entry.prev === undefined && queue.head !== entry) return
  if (entry.prev !== undefined) entry.prev.next = entry.next
  else queue.head = entry.next
  if (entry.next !== undefined) entry.next.prev = entry.prev
  else queue.tail = entry.prev
  entry.prev = entry.next = undefined
}

/** `ref()`/`unref()` where the runtime's timers have them (Node, Bun, Deno); elsewhere nothing to do. */
function keepAlive(timer: ReturnType<typeof setTimeout>, alive: boolean): void {
  const t = timer as { ref?: () => void; unref?: () => void }
  if (alive) t.ref?.()
  else t.unref?.()
}
