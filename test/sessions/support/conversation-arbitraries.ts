import fc from 'fast-check'
import type { Message } from '../../../src/index.ts'

/** Any text, NUL and lone surrogates included (JSON writes them escaped). */
const text = fc.string({ unit: 'binary', maxLength: 16 })
/** Tool arguments as a model sends them: a JSON value (normalised: no -0), or the raw string of an unparsable one. */
const args = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown),
  text,
)

/** One tool turn: an assistant message with 1 to 3 calls (ids unique in the exchange) and results for some of them, in any order. */
const toolTurn = (turn: number): fc.Arbitrary<Message[]> =>
  fc
    .record({
      content: text,
      reasoning: fc.option(fc.array(fc.record({ text, signature: fc.option(text, { nil: undefined }) }, { requiredKeys: ['text'] }), { maxLength: 2 }), {
        nil: undefined,
      }),
      calls: fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), name: fc.string({ minLength: 1, maxLength: 6 }), args }), {
        minLength: 1,
        maxLength: 3,
        selector: (call) => call.id,
      }),
      answered: fc.array(fc.record({ pick: fc.nat(), content: text, isError: fc.option(fc.boolean(), { nil: undefined }), named: fc.boolean() }), {
        maxLength: 3,
      }),
    })
    .map(({ content, reasoning, calls, answered }) => {
      const ids = calls.map((call) => `${turn}-${call.id}`)
      const assistant: Message = {
        role: 'assistant',
        content,
        toolCalls: calls.map((call, i) => ({ ...call, id: ids[i] as string })),
        ...(reasoning === undefined
          ? {}
          : { reasoning: reasoning.map((r) => (r.signature === undefined ? { text: r.text } : { text: r.text, signature: r.signature })) }),
      }
      const open = [...calls.keys()]
      const results: Message[] = []
      for (const answer of answered) {
        if (open.length === 0) break
        const [index] = open.splice(answer.pick % open.length, 1) as [number]
        results.push({
          role: 'tool',
          content: answer.content,
          toolCallId: ids[index] as string,
          ...(answer.named ? { toolName: calls[index]?.name as string } : {}),
          ...(answer.isError === undefined ? {} : { isError: answer.isError }),
        })
      }
      return [assistant, ...results]
    })

/** One exchange the library commits: an optional system message, the user's, 0 to 2 tool turns, the answer. */
export const exchangeArbitrary: fc.Arbitrary<Message[]> = fc
  .record({
    system: fc.option(text, { nil: undefined }),
    question: text,
    turns: fc.array(fc.constant(0), { maxLength: 2 }).chain((turns) => fc.tuple(...turns.map((_, i) => toolTurn(i)))),
    answer: text,
  })
  .map(({ system, question, turns, answer }) => [
    ...(system === undefined ? [] : [{ role: 'system' as const, content: system }]),
    { role: 'user' as const, content: question },
    ...turns.flat(),
    { role: 'assistant' as const, content: answer },
  ])

/** A conversation: 1 to 3 exchanges. */
export const conversationArbitrary: fc.Arbitrary<Message[][]> = fc.array(exchangeArbitrary, { minLength: 1, maxLength: 3 })

/** A path into a JSON tree: the keys and indexes from the root. */
type Path = readonly (string | number)[]

function pathsOf(value: unknown, at: Path = []): Path[] {
  const here = [at]
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => pathsOf(v, [...at, i])))
  if (typeof value === 'object' && value !== null) return here.concat(...Object.entries(value).map(([k, v]) => pathsOf(v, [...at, k])))
  return here
}

/** One edit of a stored record: where (an index into its nodes), what, and with which key and value. */
export interface Corruption {
  readonly node: number
  readonly op: 'replace' | 'remove' | 'add-key' | 'duplicate' | 'truncate' | 'insert-text'
  readonly key: string
  readonly value: unknown
  readonly at: number
}

const hostileValue = fc.oneof(
  fc.constantFrom(42, 'zz', null, true, false, [], {}, 'hacker', 'tool', 'assistant', '', 0, 2, -1, 1.5, [{}], [{ id: 'x', name: 'y' }]),
  fc.jsonValue({ maxDepth: 2 }),
)

/** A corruption of a stored record: a value replaced, removed, a key added (`ephemeral` among them), an element doubled, or the text cut or spliced. */
export const corruptionArbitrary: fc.Arbitrary<Corruption> = fc.record({
  node: fc.nat(),
  op: fc.constantFrom('replace', 'remove', 'add-key', 'duplicate', 'truncate', 'insert-text'),
  key: fc.constantFrom(
    'ephemeral',
    'role',
    'content',
    'toolCalls',
    'toolCallId',
    'toolName',
    'isError',
    'reasoning',
    'id',
    'name',
    'args',
    'f',
    'm',
    '__proto__',
    'x',
  ),
  value: hostileValue,
  at: fc.nat(),
})

/** `body` (a stored record's text) with `corruption` applied. */
export function corrupt(body: string, corruption: Corruption): string {
  // Never between the halves of a surrogate pair: a lone surrogate has no UTF-8 form, so the backing
  // store would hold U+FFFD, not the text written (the edit would not be the one under test).
  const cut = (at: number): number => (/[\ud800-\udbff]/.test(body[at - 1] ?? '') ? at - 1 : at)
  if (corruption.op === 'truncate') return body.slice(0, cut(corruption.at % body.length))
  if (corruption.op === 'insert-text') {
    const at = cut(corruption.at % (body.length + 1))
    return `${body.slice(0, at)}${Array.from(String(JSON.stringify(corruption.value)))
      .slice(0, 3)
      .join('')}${body.slice(at)}`
  }
  const root = JSON.parse(body) as unknown
  const paths = pathsOf(root)
  const path = paths[corruption.node % paths.length] as Path
  if (path.length === 0) return corruption.op === 'replace' ? JSON.stringify(corruption.value) : body
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root) as Record<string | number, unknown>
  const last = path.at(-1) as string | number
  if (corruption.op === 'replace') parent[last] = corruption.value
  else if (corruption.op === 'remove') {
    if (Array.isArray(parent)) parent.splice(last as number, 1)
    else delete parent[last]
  } else if (corruption.op === 'duplicate') {
    if (Array.isArray(parent)) parent.splice(last as number, 0, structuredClone(parent[last as number]))
  } else {
    const target = parent[last]
    // An own key, `__proto__` included (an assignment would set the prototype instead).
    if (typeof target === 'object' && target !== null && !Array.isArray(target))
      Object.defineProperty(target, corruption.key, { value: corruption.value, enumerable: true, writable: true, configurable: true })
  }
  return JSON.stringify(root)
}
