import { describe, expect, it } from 'vitest'
import { checkToolInput } from '../../src/providers/adapter-kit/parse-tool-args.ts'

describe('checkToolInput', () => {
  it('keeps an SDK-parsed input without a forbidden key as it is', () => {
    const input = { orderId: '42' }
    expect(checkToolInput(input)).toBe(input)
  })

  it('hands an input holding a forbidden key on as its JSON text', () => {
    expect(checkToolInput(JSON.parse('{"__proto__": {"admin": true}}'))).toBe('{"__proto__":{"admin":true}}')
  })

  it('describes, without throwing, an input holding a forbidden key that has neither JSON nor a string form', () => {
    const input = Object.create(null) as Record<string, unknown>
    Object.defineProperty(input, '__proto__', { value: 1n, enumerable: true })
    const checked = checkToolInput(input)
    expect(typeof checked).toBe('string')
    expect(checked).not.toBe(input)
  })
})
