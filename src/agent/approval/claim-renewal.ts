/** A resume's claim kept alive while its run goes on; {@link ClaimRenewal.stop} ends it. */
export interface ClaimRenewal {
  /** Renews no more, once the renewal in flight (if any) has settled: the claim can then be finished or released. */
  stop(): Promise<void>
}

/**
 * Keeps a resume's claim on its approval while its run goes on: every third of `leaseMs`, `renew`
 * extends the lease (it answers `false` once the claim is no longer this resume's). Another process
 * then takes the approval over only once this one stops renewing, because it died (or its store no
 * longer answers it), never while a live run, a slow tool or a long model turn, is still using it.
 * One renewal at a time; a failed one is dropped (the next tries again, and the lease covers two
 * missed ones). The timer does not hold the process open.
 */
export function renewClaim(renew: () => Promise<boolean>, leaseMs: number): ClaimRenewal {
  let inFlight: Promise<void> | undefined
  const timer = setInterval(
    () => {
      inFlight ??= renew().then(
        (held) => {
          inFlight = undefined
          if (!held) clearInterval(timer)
        },
        () => {
          inFlight = undefined
        },
      )
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  )
  timer.unref?.()
  return {
    async stop() {
      clearInterval(timer)
      await inFlight
    },
  }
}
