import type { SchemaView } from './schema-view.ts'

/** A path into the streamed value: property names and array indexes. */
export type Segments = readonly (string | number)[]

/** An object being streamed: its members so far, and whether a key or a value comes next. */
export interface ObjectFrame {
  readonly kind: 'object'
  readonly value: Record<string, unknown>
  readonly view: SchemaView
  readonly segments: Segments
  expectKey: boolean
  key: string | undefined
}

/** An array being streamed: its items so far and the index of the next one. */
export interface ArrayFrame {
  readonly kind: 'array'
  readonly value: unknown[]
  readonly view: SchemaView
  readonly segments: Segments
  index: number
}

/** One open container of the streamed value. */
export type Frame = ObjectFrame | ArrayFrame
