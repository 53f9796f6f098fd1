import { TerminalError } from '@restatedev/restate-sdk'
import { describe, expect, it } from 'vitest'
import type { RestateContextLike } from '../../src/durable/restate-port.ts'
import { restatePort } from '../../src/restate.ts'

/**
 * A context shaped as the SDK's one context class is: `key` is a getter that throws a `TerminalError`
 * in a service's handler ("this handler type doesn't support key()") and answers the key in an
 * object's or a workflow's. Steps run at once.
 */
function context(key: string | undefined, invocationId: string, handlerKind?: number): RestateContextLike {
  return {
    ...(handlerKind === undefined ? {} : { handlerKind }),
    get key(): string {
      if (key === undefined) throw new TerminalError("this handler type doesn't support key()")
      return key
    },
    request: () => ({ id: invocationId }),
    run: async <T>(_name: string, action: () => Promise<T>) => action(),
    sleep: async () => undefined,
  }
}

describe('restatePort', () => {
  it("names a virtual object's run by its invocation id: the object's key is every invocation's on it (the SDK's handler kinds 1 and 2)", () => {
    expect(restatePort(context('order-42', 'inv_a', 1)).runId).toBe('inv_a')
    expect(restatePort(context('order-42', 'inv_b', 2)).runId).toBe('inv_b')
    expect(restatePort(context('order-42', 'inv_c', 3)).runId).toBe('order-42')
  })

  it("names the run by the workflow's key", async () => {
    const port = restatePort(context('order-42', 'inv_1'))
    expect(port.runId).toBe('order-42')
    expect(await port.step('one', () => 1)).toBe(1)
  })

  it("names a service handler's run by its invocation id, where the context's key throws", async () => {
    const port = restatePort(context(undefined, 'inv_1f3c'))
    expect(port.runId).toBe('inv_1f3c')
    expect(await port.step('one', () => 'done')).toBe('done')
  })
})
