import { setTimeout as sleep } from 'node:timers/promises'
import { expect, it } from 'vitest'
import { isSessionFormatError, type Message, type SessionStore } from '../../../src/index.ts'

/** A session store under test, with what the storage-level checks read beside it. */
export interface StoreBackend {
  readonly store: SessionStore
  /** A store on the same backend whose conversations expire after `ttlMs`. */
  withTtl(ttlMs: number): SessionStore
  /** Everything the backend holds (rows, keys and values, file bytes) as text; absent for memory. */
  readonly raw?: () => Promise<string>
  /** Writes a record of `id` in format `format` behind the store's back (the next version of the library). */
  readonly plant?: (id: string, format: number) => Promise<void>
}

let serial = 0
/** A conversation id no other test of the run uses. */
export const freshId = (label: string): string => `${label}-${process.pid}-${++serial}`

/** One exchange of `tag`: a user message, a tool turn with its result, the answer. */
export const exchangeOf = (tag: string): Message[] => [
  { role: 'user', content: `question ${tag}` },
  { role: 'assistant', content: '', toolCalls: [{ id: `call-${tag}`, name: 'lookup', args: { order: tag } }] },
  { role: 'tool', content: `{"order":"${tag}"}`, toolCallId: `call-${tag}`, toolName: 'lookup' },
  { role: 'assistant', content: `answer ${tag}` },
]

/** Splits a history into exchanges (each starts at a user message) and names each by its tag; throws on an interleaved one. */
export function exchangesOf(messages: readonly Message[]): string[] {
  const tags: string[] = []
  for (let i = 0; i < messages.length; i += 4) {
    const tag = /^question (.+)$/.exec(messages[i]?.content ?? '')?.[1]
    expect(tag, `message ${i} starts an exchange`).toBeDefined()
    expect(messages.slice(i, i + 4)).toEqual(exchangeOf(tag as string))
    tags.push(tag as string)
  }
  return tags
}

/**
 * The behaviour every {@link SessionStore} shares, registered in the current `describe`. `backend`
 * is read in each test (after the file's `beforeAll`).
 */
export function sessionStoreContract(label: string, backend: () => StoreBackend): void {
  it('loads a conversation it does not know as empty, at version 0', async () => {
    expect(await backend().store.load(freshId(label))).toEqual({ messages: [], version: 0 })
  })

  it('appends exchanges whole, in order, one version each', async () => {
    const { store } = backend()
    const id = freshId(label)
    expect(await store.append(id, { exchange: exchangeOf('a'), expectedVersion: 0 })).toEqual({ committed: true, version: 1, staleBy: 0 })
    expect(await store.append(id, { exchange: exchangeOf('b'), expectedVersion: 1 })).toEqual({ committed: true, version: 2, staleBy: 0 })
    const loaded = await store.load(id)
    expect(loaded.version).toBe(2)
    expect(exchangesOf(loaded.messages)).toEqual(['a', 'b'])
  })

  it('keeps unicode, newlines and quotes of a message unchanged', async () => {
    const { store } = backend()
    const id = freshId(label)
    const odd: Message[] = [
      { role: 'user', content: 'ünïcødé "quoted" \n line\u2028 \\ back \u0000 nul 😀' },
      { role: 'assistant', content: '{"a":[1,2]}' },
    ]
    await store.append(id, { exchange: odd, expectedVersion: 0 })
    expect((await store.load(id)).messages).toEqual(odd)
  })

  it('keeps conversations apart', async () => {
    const { store } = backend()
    const [one, two] = [freshId(label), freshId(label)]
    await store.append(one, { exchange: exchangeOf('one'), expectedVersion: 0 })
    await store.append(two, { exchange: exchangeOf('two'), expectedVersion: 0 })
    expect(exchangesOf((await store.load(one)).messages)).toEqual(['one'])
    expect(exchangesOf((await store.load(two)).messages)).toEqual(['two'])
  })

  it("with onConflict 'fail', refuses an exchange computed on an older version and writes nothing", async () => {
    const { store } = backend()
    const id = freshId(label)
    await store.append(id, { exchange: exchangeOf('a'), expectedVersion: 0 })
    await store.append(id, { exchange: exchangeOf('b'), expectedVersion: 1 })
    expect(await store.append(id, { exchange: exchangeOf('late'), expectedVersion: 1, onConflict: 'fail' })).toEqual({ committed: false, version: 2 })
    expect(await store.append(id, { exchange: exchangeOf('new'), expectedVersion: 0, onConflict: 'fail' })).toEqual({ committed: false, version: 2 })
    expect(exchangesOf((await store.load(id)).messages)).toEqual(['a', 'b'])
    expect(await store.append(id, { exchange: exchangeOf('c'), expectedVersion: 2, onConflict: 'fail' })).toEqual({ committed: true, version: 3, staleBy: 0 })
  })

  it("with onConflict 'append', commits a stale exchange after the newer ones and says by how much it was behind", async () => {
    const { store } = backend()
    const id = freshId(label)
    await store.append(id, { exchange: exchangeOf('a'), expectedVersion: 0 })
    await store.append(id, { exchange: exchangeOf('b'), expectedVersion: 1 })
    expect(await store.append(id, { exchange: exchangeOf('late'), expectedVersion: 0 })).toEqual({ committed: true, version: 3, staleBy: 2 })
    expect(exchangesOf((await store.load(id)).messages)).toEqual(['a', 'b', 'late'])
  })

  it('takes an expected version past any stored one (2^31, 2^53 - 1) as a version never reached: fail commits nothing, append commits', async () => {
    const { store } = backend()
    const id = freshId(label)
    await store.append(id, { exchange: exchangeOf('a'), expectedVersion: 0 })
    for (const expectedVersion of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(await store.append(id, { exchange: exchangeOf('never'), expectedVersion, onConflict: 'fail' })).toEqual({ committed: false, version: 1 })
    }
    expect(await store.append(id, { exchange: exchangeOf('b'), expectedVersion: Number.MAX_SAFE_INTEGER })).toEqual({ committed: true, version: 2, staleBy: 1 })
    expect(exchangesOf((await store.load(id)).messages)).toEqual(['a', 'b'])
  })

  it('swaps no approval at a revision none can be at (0, -1, 1.5, NaN, Infinity, 2^31, 2^53 - 1, a string), and swaps at its own', async () => {
    const { store } = backend()
    const slots = store.approvals as NonNullable<SessionStore['approvals']>
    const id = freshId(label)
    expect(await slots.create(id, 'ap-1', 'asked')).toBe(true)
    for (const rev of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, Number.MAX_SAFE_INTEGER, '1' as unknown as number]) {
      expect(await slots.swap(id, 'ap-1', rev, 'forged'), String(rev)).toBe(false)
    }
    expect(await slots.read(id, 'ap-1')).toEqual({ rev: 1, body: 'asked' })
    expect(await slots.swap(id, 'ap-1', 1, 'decided')).toBe(true)
    expect(await slots.read(id, 'ap-1')).toEqual({ rev: 2, body: 'decided' })
  })

  it('commits 24 concurrent appends to one conversation whole, never interleaved, each once, one version each', async () => {
    const { store } = backend()
    const id = freshId(label)
    const tags = Array.from({ length: 24 }, (_, i) => `c${i}`)
    const outcomes = await Promise.all(tags.map((tag) => store.append(id, { exchange: exchangeOf(tag), expectedVersion: 0 })))
    const versions = outcomes.map((o) => o.version).sort((a, b) => a - b)
    expect(versions).toEqual(tags.map((_, i) => i + 1))
    const stored = exchangesOf((await store.load(id)).messages)
    expect([...stored].sort()).toEqual([...tags].sort())
    // Commit order: each exchange sits at the version its append reported.
    for (const [i, tag] of tags.entries()) expect(stored[(outcomes[i]?.version ?? 0) - 1]).toBe(tag)
  })

  it('under concurrent fail-mode appends on one version, commits exactly one', async () => {
    const { store } = backend()
    const id = freshId(label)
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.append(id, { exchange: exchangeOf(`r${i}`), expectedVersion: 0, onConflict: 'fail' })),
    )
    expect(outcomes.filter((o) => o.committed)).toHaveLength(1)
    expect((await store.load(id)).version).toBe(1)
  })

  it('hands out copies: changing a loaded or appended message changes nothing stored', async () => {
    const { store } = backend()
    const id = freshId(label)
    const exchange = exchangeOf('a')
    await store.append(id, { exchange, expectedVersion: 0 })
    ;(exchange[0] as { content: string }).content = 'changed after append'
    const loaded = await store.load(id)
    ;(loaded.messages[0] as { content: string }).content = 'changed after load'
    expect(exchangesOf((await store.load(id)).messages)).toEqual(['a'])
  })

  it('refuses an ephemeral message with a TypeError and stores nothing of the exchange', async () => {
    const { store, raw } = backend()
    const id = freshId(label)
    const tainted: Message[] = [
      { role: 'user', content: 'question tainted' },
      { role: 'user', content: 'FEEDBACK-TEXT fix the JSON', ephemeral: true },
    ]
    await expect(store.append(id, { exchange: tainted, expectedVersion: 0 })).rejects.toThrow(TypeError)
    expect(await store.load(id)).toEqual({ messages: [], version: 0 })
    if (raw !== undefined) {
      const stored = await raw()
      expect(stored).not.toContain('FEEDBACK-TEXT')
      expect(stored).not.toContain('question tainted')
      expect(stored).not.toContain('ephemeral')
    }
  })

  it('refuses malformed calls with a TypeError naming the method', async () => {
    const { store } = backend()
    await expect(store.load('' as string)).rejects.toThrow(/load: id/)
    await expect(store.append(freshId(label), { exchange: [], expectedVersion: 0 })).rejects.toThrow(/append: exchange/)
    await expect(store.append(freshId(label), { exchange: exchangeOf('x'), expectedVersion: -1 })).rejects.toThrow(/expectedVersion/)
    await expect(store.append(freshId(label), { exchange: exchangeOf('x'), expectedVersion: 0, onConflict: 'merge' as 'fail' })).rejects.toThrow(/onConflict/)
    await expect(store.delete(42 as unknown as string)).rejects.toThrow(TypeError)
  })

  it('erases every record of a conversation on delete, and only of that one', async () => {
    const { store, raw } = backend()
    const [gone, kept] = [freshId(label), freshId(label)]
    await store.append(gone, { exchange: exchangeOf(`forget-me-${gone}`), expectedVersion: 0 })
    await store.append(gone, { exchange: exchangeOf(`forget-me-too-${gone}`), expectedVersion: 1 })
    await store.append(kept, { exchange: exchangeOf(`keep-${kept}`), expectedVersion: 0 })
    await store.delete(gone)
    expect(await store.load(gone)).toEqual({ messages: [], version: 0 })
    expect(exchangesOf((await store.load(kept)).messages)).toEqual([`keep-${kept}`])
    if (raw !== undefined) {
      const stored = await raw()
      expect(stored).not.toContain(`forget-me-${gone}`)
      expect(stored).not.toContain(`forget-me-too-${gone}`)
      expect(stored).toContain(`keep-${kept}`)
    }
    // A conversation erased and started again counts from version 1.
    expect(await store.append(gone, { exchange: exchangeOf('again'), expectedVersion: 0 })).toEqual({ committed: true, version: 1, staleBy: 0 })
  })

  it('forgets a conversation once its ttl has passed since the last append', async () => {
    const store = backend().withTtl(150)
    const id = freshId(label)
    await store.append(id, { exchange: exchangeOf('short-lived'), expectedVersion: 0 })
    expect((await store.load(id)).version).toBe(1)
    await sleep(400)
    expect(await store.load(id)).toEqual({ messages: [], version: 0 })
    expect(await store.append(id, { exchange: exchangeOf('after'), expectedVersion: 0, onConflict: 'fail' })).toEqual({
      committed: true,
      version: 1,
      staleBy: 0,
    })
  })

  it('erases the approvals of a conversation once its ttl has passed, as delete does', async () => {
    const store = backend().withTtl(150)
    const slots = store.approvals as NonNullable<SessionStore['approvals']>
    const id = freshId(label)
    await store.append(id, { exchange: exchangeOf('paused'), expectedVersion: 0 })
    expect(await slots.create(id, 'ap-1', 'pending')).toBe(true)
    await sleep(400)
    expect(await store.load(id)).toEqual({ messages: [], version: 0 })
    expect(await slots.read(id, 'ap-1')).toBeUndefined()
  })

  it("erases an approval made late in a conversation's life with the conversation, not a ttl after the approval", async () => {
    const store = backend().withTtl(1_000)
    const slots = store.approvals as NonNullable<SessionStore['approvals']>
    const id = freshId(label)
    await store.append(id, { exchange: exchangeOf('long ago'), expectedVersion: 0 })
    await sleep(300)
    expect(await slots.create(id, 'ap-late', 'pending')).toBe(true)
    // Past the conversation's expiry (1,000 ms after its append), well before 1,000 ms after the approval.
    await sleep(900)
    expect(await slots.read(id, 'ap-late')).toBeUndefined()
    expect(await store.load(id)).toEqual({ messages: [], version: 0 })
  })

  it('erases the approvals of a conversation paused before its first exchange a ttl after the pause; its first commit is still version 1', async () => {
    const store = backend().withTtl(300)
    const slots = store.approvals as NonNullable<SessionStore['approvals']>
    const [abandoned, answered] = [freshId(label), freshId(label)]
    expect(await slots.create(abandoned, 'ap-first', 'pending')).toBe(true)
    expect(await slots.create(answered, 'ap-first', 'pending')).toBe(true)
    expect(await store.load(abandoned)).toEqual({ messages: [], version: 0 })
    // The pause left the conversation new: its first commit is version 1, however it is made.
    expect(await store.append(answered, { exchange: exchangeOf('resumed'), expectedVersion: 0, onConflict: 'fail' })).toEqual({
      committed: true,
      version: 1,
      staleBy: 0,
    })
    await sleep(600)
    expect(await slots.read(abandoned, 'ap-first')).toBeUndefined()
    expect(await store.load(abandoned)).toEqual({ messages: [], version: 0 })
    expect(await store.load(answered)).toEqual({ messages: [], version: 0 })
    expect(await slots.read(answered, 'ap-first')).toBeUndefined()
  })

  it('refuses to read a record written in a newer format, with a SessionFormatError', async ({ skip }) => {
    const { store, plant } = backend()
    if (plant === undefined) return skip('this backend has no storage to write behind the store')
    const id = freshId(label)
    await store.append(id, { exchange: exchangeOf('old'), expectedVersion: 0 })
    await plant(id, 2)
    const error = await store.load(id).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isSessionFormatError(error)).toBe(true)
    expect(String((error as Error).message)).toMatch(/format 2.*reads format 1.*upgrade reliability-gate/)
  })
}
