import { z } from 'zod'
import { z as z3 } from 'zod/v3'

/** {@link Refund} as Zod 4, for the peers that take Zod. */
export const RefundZod = z
  .object({
    action: z.enum(['refund', 'reject']),
    amount: z.number(),
  })
  .strict()

/** The tool arguments of scenario (d), as Zod 4. */
export const LookupArgsZod = z.object({ orderId: z.string().regex(/^A-\d+$/) }).strict()

/**
 * The same schema through Zod's v3 API: instructor-js 1.7 formats feedback with zod-validation-error
 * v3 and converts schemas with zod-to-json-schema, both of which need Zod 3 objects. Not `.strict()`:
 * instructor adds its `_meta` key to the object before validating, so a strict schema always fails.
 */
export const RefundZod3 = z3.object({
  action: z3.enum(['refund', 'reject']),
  amount: z3.number(),
})
