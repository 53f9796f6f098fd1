import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { compileSchema, IncrementalValidator, validateFinalAnswer } from '../../src/validation/building-blocks.ts'

const Order = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('on-hold')]),
    qty: Type.Integer(),
    price: Type.Number(),
    tags: Type.Array(Type.String()),
    owner: Type.Union([Type.Null(), Type.Object({ name: Type.String(), vip: Type.Boolean() }, { additionalProperties: false })]),
    note: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)
const compiled = compileSchema(Order)

// Values near the schema: right and wrong types, enum near-misses, unknown and missing keys.
const anyScalar = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -5, max: 500 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
)
const order = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 8 }), anyScalar),
    status: fc.oneof(fc.constantFrom('open', 'closed', 'on-hold', 'on', 'clo', 'pending', 'OPEN'), anyScalar),
    qty: fc.oneof(fc.integer({ min: 0, max: 99 }), anyScalar),
    price: fc.oneof(fc.double({ min: 0, max: 1e4, noNaN: true }), anyScalar),
    tags: fc.oneof(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.array(anyScalar, { maxLength: 3 }), anyScalar),
    owner: fc.oneof(
      fc.constant(null),
      fc.record({ name: fc.oneof(fc.string({ maxLength: 6 }), anyScalar), vip: fc.oneof(fc.boolean(), anyScalar) }, { requiredKeys: [] }),
      fc.dictionary(fc.constantFrom('name', 'vip', 'nick'), anyScalar),
      anyScalar,
    ),
    note: fc.string({ maxLength: 10 }),
    extra: anyScalar,
  },
  { requiredKeys: [] },
)

// Answers the gate accepts, so the no-false-abort half of the property is exercised every run.
const validOrder = fc.record(
  {
    id: fc.string({ maxLength: 8 }),
    status: fc.constantFrom('open', 'closed', 'on-hold'),
    qty: fc.integer({ min: 0, max: 99 }),
    price: fc.double({ min: 0, max: 1e4, noNaN: true }),
    tags: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    owner: fc.oneof(fc.constant(null), fc.record({ name: fc.string({ maxLength: 6 }), vip: fc.boolean() })),
    note: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['id', 'status', 'qty', 'price', 'tags', 'owner'] },
)

/** A serialisation of the value, compact or indented, cut into random chunks. */
const answer = fc.oneof(validOrder, order).chain((value) =>
  fc.record({
    value: fc.constant(value),
    indent: fc.constantFrom(0, 2),
    fence: fc.boolean(),
    // A bracketed label some models write before the JSON: prose to the gate, not an array.
    label: fc.constantFrom('', '', '', '[Answer]\n', '[note] '),
    cuts: fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 40 }),
  }),
)

function chunk(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const out: string[] = []
  let at = 0
  for (const p of points) {
    if (p > at) out.push(text.slice(at, p))
    at = Math.max(at, p)
  }
  out.push(text.slice(at))
  return out.filter((c) => c !== '')
}

function run(chunks: readonly string[]) {
  const v = new IncrementalValidator(Order)
  for (const c of chunks) if (v.push(c) !== undefined) break
  return v.violation
}

describe('progressive validation (property)', () => {
  it('reaches the verdict of validating the whole answer for any chunking, with no false aborts', async () => {
    let aborts = 0
    let valid = 0
    await fc.assert(
      fc.asyncProperty(answer, async ({ value, indent, fence, label, cuts }) => {
        const json = JSON.stringify(value, null, indent)
        const text = label + (fence ? `\`\`\`json\n${json}\n\`\`\`` : json)
        const whole = await validateFinalAnswer(text, compiled, { repair: true })
        const split = run(chunk(text, cuts))
        const single = run([...text])
        if (whole.ok) {
          valid++
          // No false aborts: an answer the gate accepts is never cut.
          expect(split).toBeUndefined()
          expect(single).toBeUndefined()
        }
        if (split !== undefined) {
          aborts++
          expect(whole.ok).toBe(false)
          // The first definite violation does not depend on where the chunks were cut.
          expect(single?.path).toBe(split.path)
          // The whole-answer validation reports it there, or at the union it sits in (a path prefix).
          if (!whole.ok)
            expect(
              whole.failure.issues.some(
                (i) => split.path === i.path || split.path.startsWith(i.path === '' ? '' : `${i.path}.`) || split.path.startsWith(`${i.path}[`),
              ),
            ).toBe(true)
        }
      }),
      { numRuns: 1000 },
    )
    expect(valid).toBeGreaterThan(0)
    expect(aborts).toBeGreaterThan(100)
  })
})
