/** Values lifted from the prompt so that simulated answers look related to what was asked. */
export interface PromptHints {
  /** From `$50` or `50 USD`: used for number properties named like amount / price / total / cost. */
  readonly amount?: number
  /** From `#42`: used for string properties named `orderId` / `order_id`. */
  readonly orderId?: string
}

const AMOUNT = /\$\s?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s?(?:USD|dollars?)\b/i
const ORDER_ID = /#([A-Za-z0-9-]+)/

/** Reads the few hints the simulator understands; deliberately tiny, it is not a language model. */
export function readPromptHints(prompt: string): PromptHints {
  const amount = AMOUNT.exec(prompt)
  const orderId = ORDER_ID.exec(prompt)
  const amountText = amount?.[1] ?? amount?.[2]
  return {
    ...(amountText === undefined ? {} : { amount: Number(amountText) }),
    ...(orderId?.[1] === undefined ? {} : { orderId: orderId[1] }),
  }
}

/** Whether a property name looks like it holds money. */
export const isAmountKey = (key: string): boolean => /amount|price|total|cost/i.test(key)

/** Whether a property name looks like an order identifier. */
export const isOrderIdKey = (key: string): boolean => /^order_?id$/i.test(key)
