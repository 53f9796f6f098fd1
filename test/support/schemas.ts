import { Type } from 'typebox'

/** The refund decision used across scenario tests. */
export const Refund = Type.Object(
  {
    orderId: Type.String(),
    action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]),
    amount: Type.Number(),
  },
  { additionalProperties: false },
)

export const validRefund = { orderId: '42', action: 'refund', amount: 50 } as const
export const validRefundJson = JSON.stringify(validRefund)

/** A user message. */
export const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] })
