import { describe, expect, it } from 'vitest'
import { isProviderError, type ModelRequest, type ModelResponse } from '../../src/index.ts'
import { ZERO_USAGE } from '../../src/model/usage.ts'
import { hostProvider } from '../../src/integrations/host/host-provider.ts'

const request = (content: string): ModelRequest => ({ messages: [{ role: 'user', content }] })
const read = (text: string): ModelResponse => ({ content: text, toolCalls: [], usage: ZERO_USAGE, stopReason: 'end' })

function deferred<T>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('hostProvider', () => {
  it("calls the host's model on every attempt, the first included, and keeps the host's own answer", async () => {
    const asked: string[] = []
    const call = async (r: ModelRequest) => {
      asked.push(r.messages[0]?.content ?? '')
      return `answer to ${asked.length}`
    }
    const host = hostProvider('host', 'm-1', call, read)
    expect(host.provider).toMatchObject({ name: 'host', model: 'm-1' })
    expect(host.last()).toBeUndefined()
    expect((await host.provider.complete(request('a'))).content).toBe('answer to 1')
    expect(host.last()).toBe('answer to 1')
    expect((await host.provider.complete(request('b'))).content).toBe('answer to 2')
    expect(asked).toEqual(['a', 'b'])
  })

  it('keeps the answer of the latest attempt when an abandoned one answers late', async () => {
    const first = deferred<string>()
    const answers = [first.promise, Promise.resolve('second')]
    const host = hostProvider('host', undefined, () => answers.shift() as Promise<string>, read)
    const abandoned = host.provider.complete(request('x'))
    await host.provider.complete(request('x'))
    first.resolve('late')
    await abandoned
    expect(host.last()).toBe('second')
  })

  it("gives a throw of the host's call as a typed ProviderError of the host, and forgets the previous answer", async () => {
    const calls = [async () => 'ok', async () => Promise.reject(Object.assign(new Error('Service Unavailable'), { status: 503 }))]
    const host = hostProvider('host', undefined, () => (calls.shift() as () => Promise<string>)(), read)
    await host.provider.complete(request('x'))
    const error = await host.provider.complete(request('x')).catch((e: unknown) => e)
    expect(isProviderError(error) && [error.kind, error.provider, error.status]).toEqual(['http-5xx', 'host', 503])
    expect(host.last()).toBeUndefined()
  })

  it('gives a rejection that is not an Error as a ProviderError of the host too', async () => {
    const failing = deferred<string>()
    const host = hostProvider('host', undefined, () => failing.promise, read)
    const pending = host.provider.complete(request('x')).catch((e: unknown) => e)
    failing.reject('plain string')
    const error = await pending
    expect(isProviderError(error) && error.provider).toBe('host')
  })
})
