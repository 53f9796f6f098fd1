import { Worker } from 'node:worker_threads'
import fc from 'fast-check'
import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { compileSchema } from '../../src/validation/index.ts'

const Unique = { type: 'array', uniqueItems: true } as const

describe('compileSchema (uniqueItems)', () => {
  it('refuses an array holding equal items, objects with their keys in another order included', () => {
    const schema = compileSchema({ type: 'object', properties: { tags: Unique } })
    expect(schema.validate({ tags: [1, 2, 1] })).toMatchObject({ ok: false, issues: [{ path: 'tags', message: 'must not have duplicate items' }] })
    expect(
      schema.validate({
        tags: [
          { a: 1, b: [2] },
          { b: [2], a: 1 },
        ],
      }),
    ).toMatchObject({ ok: false })
    expect(schema.validate({ tags: [1, '1', [1], { a: 1 }, { a: '1' }, null, false, 0] })).toMatchObject({ ok: true })
    expect(compileSchema({ type: 'array', uniqueItems: false }).validate([1, 1])).toMatchObject({ ok: true })
  })

  it('gives the verdict TypeBox gives on any array (property)', () => {
    const schema = compileSchema(Unique)
    const item = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b'), fc.jsonValue({ maxDepth: 2 }))
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (value) => {
        expect(schema.validate(value)).toMatchObject({ ok: Value.Check(Unique, value) })
      }),
      { numRuns: 500 },
    )
  })

  it('explains an array of 200,000 equal items, in a worker that would otherwise take minutes', async () => {
    const source = `
      const { parentPort } = require('node:worker_threads')
      import(${JSON.stringify(new URL('../../src/validation/index.ts', import.meta.url).href)}).then(({ compileSchema }) => {
        const verdict = compileSchema({ type: 'object', properties: { ids: { type: 'array', uniqueItems: true } } }).validate({ ids: Array(200000).fill(7) })
        parentPort.postMessage(verdict.ok ? 'accepted' : verdict.issues.map((i) => i.message))
      })`
    const worker = new Worker(source, { eval: true })
    const answer = await new Promise<unknown>((resolve, reject) => {
      // A generous bound that only an error walk quadratic in the duplicates misses (2 * 10^10 copies); not a speed assertion.
      const timer = setTimeout(() => reject(new Error('the uniqueItems error walk did not finish')), 20_000)
      worker.once('message', (m) => (clearTimeout(timer), resolve(m)))
      worker.once('error', (e) => (clearTimeout(timer), reject(e)))
    })
    await worker.terminate()
    expect(answer).toEqual(['must not have duplicate items'])
  }, 30_000)
})
