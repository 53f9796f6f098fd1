import { BUDGET_TOLERANCE_USD } from '../../model/budget-tolerance.ts'
import { messageOf } from '../../model/message-of.ts'
import { ProviderError } from '../../model/provider-error.ts'
import type { Usage } from '../../model/usage.ts'
import { sleep } from '../deadline/sleep.ts'
import { NO_PRICING, priceOrReason } from '../meter.ts'
import { abortReason } from '../../model/abort-reason.ts'
import type { Reservation } from '../../store/state-store.ts'
import { type Admission, Refused } from '../admission.ts'
import type { OnStoreError } from '../advisory-store.ts'
import type { AttemptContext } from '../middleware.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { PriceUsage } from '../pricing/price-usage.ts'
import { finiteUsage } from '../usage-estimate.ts'
import { reservationAdvice, reservationFor, reservationUsage } from './reservation-estimate.ts'
import { budgetNow, type BudgetNow, type SharedBudget } from './shared-budget.ts'
import { isStateLostError } from '../../store/state-lost-error.ts'
import { markUnreadable } from '../../store/unreadable-value.ts'
import { shownValue } from '../../model/describe-value.ts'
import { jsonTextOf } from '../../model/json-text-of.ts'

/** The code of the `ProviderError` raised when a budget's store fails: the provider is not to blame. */
export const BUDGET_STORE_FAILED = 'budget-store-failed'

/** The code of the `ProviderError` raised while a budget's state is lost (a `StateLostError` as `cause`), until it is re-armed. */
export const BUDGET_STATE_LOST = 'budget-state-lost'

/** The code of the `ProviderError` of a budget that fails closed on an attempt it cannot price. */
const BUDGET_UNPRICED = 'budget-unpriced'

/** Reports a spent budget (the gate emits `budget_exceeded`). */
export type OnBudgetExceeded = (spentUsd: number, ctx: AttemptContext) => void

/** Reports an attempt the budget could not price (the gate emits `cost_unknown`). */
export type OnBudgetUnpriced = (ctx: AttemptContext, reason: string, usage: Usage) => void

// Waits for attempts in flight to settle: from 5 ms, doubling, at most 250 ms, with jitter.
const FIRST_WAIT_MS = 5
const LONGEST_WAIT_MS = 250

/** A shared budget as the gate applies it: the budget, how an answer is priced, and where what it cannot decide alone is reported. */
export interface BudgetPolicy {
  readonly budget: SharedBudget
  /** Prices an answer the gate's meter did not price (absent: the gate has no pricing). */
  readonly price: PriceUsage | undefined
  readonly onExceeded: OnBudgetExceeded
  readonly onUnpriced: OnBudgetUnpriced
  /** Hears a failure of the budget's store (the attempt fails all the same: a budget fails closed). */
  readonly onStoreError: OnStoreError
}

/** A budget's hold on one admitted attempt. */
interface Hold {
  readonly id: string
  readonly amount: number
  /** The reservation was priced (else why not was reported already). */
  readonly priced: boolean
  /** Until the attempt is charged, or let go of (released when it settled first). */
  holding: boolean
}

/**
 * The shared-budget policy, reserve then commit: before the call it reserves what the attempt may
 * cost (atomically against the spend and every reservation in flight, across processes); the
 * provider is called only once the reservation is granted; after the call the real cost is
 * committed and the rest released (all of it when the call failed, or when another policy refused
 * the attempt). A spent budget fails the attempt before the provider is called (kind
 * `budget-exceeded`). A store that cannot be reached fails the attempt (kind `unknown`, code
 * {@link BUDGET_STORE_FAILED}): a budget fails closed; so does a budget whose state the store found
 * gone (code {@link BUDGET_STATE_LOST}) until it is re-armed.
 */
export function budgetAdmission(policy: BudgetPolicy): Admission<Hold> {
  const { budget, price, onUnpriced, onStoreError } = policy
  // On an in-process store the budget answers at once: no promise per reserve or settle.
  const now = budgetNow(budget)
  const release = (hold: Hold): void => {
    if (!hold.holding) return
    hold.holding = false
    if (now === undefined) {
      budget.settle(hold.id, 0).catch(() => undefined) // the reservation expires anyway
      return
    }
    try {
      now.settle(hold.id, 0)
    } catch {
      // the reservation expires anyway
    }
  }
  /** After the charge: an answer that cannot be priced is reported (unless the meter did) and fails a budget that fails closed. */
  const charged = (ctx: AttemptContext, hold: Hold, usd: number | string, cost: Cost | undefined): void => {
    if (typeof usd !== 'string') return
    // An attempt whose reservation could not be priced was reported already; one the meter priced, by the meter.
    if (hold.priced && cost !== undefined) onUnpriced(ctx, usd, cost.usage)
    if (budget.onUnpriced === 'fail') throw unpricedError(budget, ctx, usd, 'after')
  }
  // The awaited paths live apart from admit and done: their callbacks' captures are allocated only when they run (about 50 B per attempt).
  const waitFor = (hold: Hold, ctx: AttemptContext, taken: Reservation | Promise<never> | undefined): Promise<Hold | Refused> =>
    acquire(policy, hold, ctx, taken).then((refused) => refused ?? hold)
  const settleLater = (hold: Hold, ctx: AttemptContext, usd: number | string, cost: Cost | undefined): Promise<void> =>
    budget.settle(hold.id, chargeOf(hold, usd)).then(
      () => charged(ctx, hold, usd, cost),
      (e: unknown) => {
        onStoreError(e, ctx)
        throw storeFailed(budget, 'charged', e)
      },
    )
  /** Reserves what an attempt may cost at most (`estimate`, or why it has no price) before it starts. */
  const reserve = (ctx: AttemptContext, estimate: number | string): Hold | Refused | Promise<Hold | Refused> => {
    if (typeof estimate === 'string') {
      onUnpriced(ctx, estimate, reservationUsage(ctx.request, budget.assumedOutputTokens))
      if (budget.onUnpriced === 'fail') return new Refused(unpricedError(budget, ctx, estimate, 'before'))
    }
    const amount = typeof estimate === 'number' ? estimate : 0
    const hold: Hold = { id: now !== undefined ? localReservationId() : reservationId(), amount, priced: typeof estimate === 'number', holding: true }
    const taken = now !== undefined ? reserveNow(budget, now, hold) : undefined
    if (taken === true) return hold
    return waitFor(hold, ctx, taken)
  }
  /** Charges an answered attempt what it cost (`usd`, or why it has no price), and lets go of the rest of its reservation. */
  const charge = (ctx: AttemptContext, hold: Hold, usd: number | string, cost: Cost | undefined): void | Promise<void> => {
    if (now === undefined) return settleLater(hold, ctx, usd, cost)
    try {
      now.settle(hold.id, chargeOf(hold, usd))
    } catch (e) {
      onStoreError(e, ctx)
      throw storeFailed(budget, 'charged', e)
    }
    return charged(ctx, hold, usd, cost)
  }
  return {
    name: 'sharedBudget',
    admit(ctx) {
      const estimate = reservationFor(budget, price, ctx)
      // A price function that answered a promise: the reservation waits for its price.
      return typeof estimate === 'object' ? estimate.then((settled) => reserve(ctx, settled)) : reserve(ctx, estimate)
    },
    undo(_ctx, hold) {
      release(hold)
    },
    done(ctx, hold, result, error) {
      // The meter priced an answer the attempt then failed on (a user link threw after the call): it is charged.
      const metered = ctx.usage !== undefined
      if ((result === undefined && !metered) || !hold.holding) {
        release(hold)
        // An answer that came after its attempt settled was dropped with it; its reservation is released.
        if (result !== undefined) throw abandoned(ctx, error)
        return
      }
      hold.holding = false
      // The gate's meter priced the answer already (and reported it when it could not): priced once.
      if (metered) return charge(ctx, hold, ctx.unpriced ?? ctx.costUsd, undefined)
      const cost = costOf(result as ModelResponse, ctx, price)
      return cost instanceof Promise ? cost.then((settled) => charge(ctx, hold, settled.usd, settled)) : charge(ctx, hold, cost.usd, cost)
    },
  }
}

/**
 * The first reservation on an in-process store, at once: `true` when granted, else the verdict
 * (for {@link acquire} to decide whether to wait) or the store's failure as a rejected verdict.
 */
function reserveNow(budget: SharedBudget, now: BudgetNow, hold: Hold): true | Reservation | Promise<never> {
  let r: Reservation
  try {
    r = now.reserve(hold.id, hold.amount)
  } catch (error) {
    return Promise.reject(error)
  }
  if (r.granted && r.spent < budget.usd - BUDGET_TOLERANCE_USD) return true
  return r
}

/** A store's verdict as the budget reads it: one that is no verdict (a `granted` not a boolean, a spend not a finite number) cannot be trusted to hold, so it fails the attempt closed. */
function readVerdict(r: Reservation): Reservation {
  const { granted, spent, held } = (typeof r === 'object' && r !== null ? r : {}) as Partial<Record<keyof Reservation, unknown>>
  if (typeof granted === 'boolean' && Number.isFinite(spent) && Number.isFinite(held)) return r
  throw markUnreadable(new TypeError(`the store's reservation verdict ${shownValue(jsonTextOf(r))} is not { granted: boolean, spent: number, held: number }`))
}

/** What an answered attempt is charged: its price, or what was reserved for it when it cannot be priced. */
function chargeOf(hold: Hold, usd: number | string): number {
  return typeof usd === 'number' ? usd : hold.amount
}

/**
 * Reserves the hold's amount, waiting while the remainder is only held by attempts in flight; throws
 * when it cannot fit. `first` is a verdict already taken (on an in-process store), not asked again.
 */
async function acquire(policy: BudgetPolicy, hold: Hold, ctx: AttemptContext, first: Reservation | Promise<never> | undefined): Promise<Refused | undefined> {
  const { budget, onExceeded, onStoreError } = policy
  const { id, amount } = hold
  let waited = 0
  let wait = FIRST_WAIT_MS
  let taken = first
  for (;;) {
    let r: Reservation
    try {
      r = readVerdict(taken !== undefined ? await taken : await budget.reserve(id, amount))
    } catch (error) {
      // A reservation the store may hold all the same (a durable write whose replica did not confirm) is let go of.
      budget.settle(id, 0).catch(() => undefined)
      onStoreError(error, ctx)
      throw storeFailed(budget, 'reserved', error)
    }
    taken = undefined
    const spent = r.spent >= budget.usd - BUDGET_TOLERANCE_USD
    if (r.granted && !spent) return undefined
    if (r.granted) await budget.settle(id, 0).catch(() => undefined)
    // Only the spend decides that the budget cannot fit the attempt; reservations come and go.
    if (spent || r.spent + amount > budget.usd + BUDGET_TOLERANCE_USD || waited >= budget.maxWaitMs) {
      const spentUsd = r.spent
      const held = r.held > 0 ? `, $${r.held} held by attempts in flight` : ''
      const error = new ProviderError(
        `the shared budget "${budget.key}" of $${budget.usd} cannot fit attempt ${ctx.attempt} (reserving $${amount}; $${spentUsd} spent${held})${reservationAdvice(budget, ctx.request, amount, spentUsd)}`,
        { kind: 'budget-exceeded', code: 'shared-budget' },
      )
      return new Refused(error, () => onExceeded(spentUsd, ctx))
    }
    const ms = Math.min(wait, budget.maxWaitMs - waited) * (0.5 + Math.random() / 2)
    await sleep(ms, ctx.request.signal)
    waited += ms
    wait = Math.min(wait * 2, LONGEST_WAIT_MS)
  }
}

/** What an answered attempt cost, as the budget priced it itself (when the gate's meter did not). */
interface Cost {
  readonly usd: number | string
  readonly usage: Usage
}

/** The real cost of an answered attempt; a string when it cannot be priced (or the answer cannot be read); a promise while a price function's promise settles. */
function costOf(response: ModelResponse, ctx: AttemptContext, price: PriceUsage | undefined): Cost | Promise<Cost> {
  let usage: Usage
  try {
    const answer =
      typeof response?.content === 'string' ? { content: response.content, toolCalls: Array.isArray(response.toolCalls) ? response.toolCalls : [] } : undefined
    usage = finiteUsage(response?.usage, ctx.request, answer)
  } catch {
    return { usd: 'the answer cannot be read', usage: { inputTokens: 0, outputTokens: 0, estimated: true } }
  }
  if (price === undefined) return { usd: NO_PRICING, usage }
  const usd = priceOrReason(price, usage, ctx.model, ctx.provider)
  return typeof usd === 'object' ? usd.then((settled) => ({ usd: settled, usage })) : { usd, usage }
}

// Reservation ids: this process's random prefix and a counter, unique across the processes sharing a
// store. The prefix is drawn at the first reservation, never at import: some runtimes (Cloudflare
// Workers) refuse random values in the global scope.
let processPrefix: string | undefined
let reservations = 0

/**
 * An id for a reservation on an in-process store, which no other process sees: the counter alone
 * (the prefixed id was a 45-character string joined and flattened each attempt, about 90 B).
 */
function localReservationId(): string {
  return `r${counterText()}`
}

function reservationId(): string {
  // With its colon: one concatenation per id (about 30 B per attempt).
  processPrefix ??= `${globalThis.crypto.randomUUID()}:`
  return processPrefix + counterText()
}

/**
 * The next counter in base 36: a base-10 conversion goes through V8's number-to-string cache, an
 * old-generation table that kept every id's digits alive past the next scavenge (about 25 B per
 * attempt promoted, and the full collections that come with it).
 */
function counterText(): string {
  return (++reservations).toString(36)
}

/** The failure of an attempt whose answer came after the attempt had settled (its deadline, its run's abort). */
function abandoned(ctx: AttemptContext, error: unknown): unknown {
  if (error !== undefined) return error
  const signal = ctx.request.signal
  return signal?.aborted === true ? abortReason(signal) : new ProviderError(`attempt ${ctx.attempt} settled before its provider answered`, { kind: 'aborted' })
}

function unpricedError(budget: SharedBudget, ctx: AttemptContext, reason: string, when: 'before' | 'after'): ProviderError {
  const what = when === 'before' ? 'cannot price the reservation of' : 'cannot price'
  return new ProviderError(`the shared budget "${budget.key}" ${what} attempt ${ctx.attempt} (${reason}) and fails closed (onUnpriced: 'fail')`, {
    kind: 'budget-exceeded',
    code: BUDGET_UNPRICED,
  })
}

function storeFailed(budget: SharedBudget, what: 'reserved' | 'charged', error: unknown): ProviderError {
  const lost = isStateLostError(error)
  const rearm = lost ? '; it fails closed until budget.rearm()' : ''
  return new ProviderError(`the shared budget "${budget.key}" could not be ${what}: ${messageOf(error)}${rearm}`, {
    kind: 'unknown',
    code: lost ? BUDGET_STATE_LOST : BUDGET_STORE_FAILED,
    cause: error,
  })
}
