/** What may stop or hold on to an attempt: its state once it needs any (see `ChainAttempt`). */
export class AttemptControl {
  /** The request carries the attempt's own signal, made when first read. */
  readonly ownSignal: boolean
  closed = false
  /** What runs on close. */
  closers: (() => void)[] | undefined = undefined
  controller: AbortController | undefined = undefined
  /** Set by `stop`, with its reason. */
  stopped = false
  reason: unknown = undefined
  /** Rejects the chain's own promise (an attempt that may be stopped answers one). */
  reject: ((reason: unknown) => void) | undefined = undefined
  constructor(ownSignal: boolean) {
    this.ownSignal = ownSignal
  }
}

// The control of every attempt closed with none: closed, holding nothing (never written: see `ChainAttempt`).
export const CLOSED: AttemptControl = Object.freeze(Object.assign(new AttemptControl(false), { closed: true }))

/** `pending` (a leave or fail waiting, on a store that may never answer), settled by a stop meanwhile: a stopped leave rejects with its reason, a stopped fail is over. */
export function untilStopped<V>(control: AttemptControl | undefined, pending: Promise<V>, rejects: boolean): Promise<V> {
  if (control?.reject === undefined) return pending
  return new Promise<V>((resolve, reject) => {
    control.reject = rejects ? reject : () => resolve(undefined as V)
    pending.then(resolve, reject)
  })
}
