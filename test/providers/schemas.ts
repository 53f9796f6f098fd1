import type { JsonSchema } from '../../src/model/request.ts'

/** A refund decision: numbers, enums, a date-time, an optional nested array; no extra fields. */
export const refundSchema: JsonSchema = {
  type: 'object',
  properties: {
    orderId: { type: 'string' },
    amount: { type: 'number', minimum: 0 },
    action: { enum: ['refund', 'reject'] },
    due: { type: 'string', format: 'date-time' },
  },
  required: ['orderId', 'amount', 'action', 'due'],
  additionalProperties: false,
}

/** Most of what the generator supports at once, nested, with `$ref`s. */
export const richSchema: JsonSchema = {
  type: 'object',
  $defs: {
    Item: {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        title: { type: 'string', minLength: 3, maxLength: 40 },
        quantity: { type: 'integer', minimum: 1, maximum: 9 },
        price: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
        tags: { type: 'array', items: { type: 'string', maxLength: 12 }, uniqueItems: true, maxItems: 4 },
      },
      required: ['id', 'title', 'quantity'],
      additionalProperties: false,
    },
  },
  properties: {
    customer: {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, since: { type: 'string', format: 'date' } },
      required: ['email'],
    },
    items: { type: 'array', items: { $ref: '#/$defs/Item' }, minItems: 1 },
    status: { anyOf: [{ const: 'open' }, { type: 'null' }] },
    total: { type: 'number', minimum: 0, multipleOf: 0.5 },
    priority: { oneOf: [{ type: 'integer', minimum: 1, maximum: 5 }, { type: 'string' }] },
    flags: { type: 'array', items: { type: 'boolean' }, minItems: 2, maxItems: 2 },
    note: { type: ['string', 'null'], pattern: '^[a-z]+-[a-z]+-\\d+$' },
    grid: { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: -3, maximum: 3 }, minItems: 1 } },
    placedAt: { type: 'string', format: 'date-time' },
    nothing: { type: 'null' },
  },
  required: ['customer', 'items', 'status', 'total', 'priority', 'flags', 'placedAt'],
  additionalProperties: false,
}

/** A `$ref` to a definition named `100%`: not a valid percent escape, so it must be read literally. */
export const percentRefSchema: JsonSchema = {
  type: 'object',
  $defs: {
    '100%': { type: 'object', properties: { percent: { type: 'number', minimum: 0, maximum: 100 } }, required: ['percent'], additionalProperties: false },
  },
  properties: { share: { $ref: '#/$defs/100%' } },
  required: ['share'],
  additionalProperties: false,
}
