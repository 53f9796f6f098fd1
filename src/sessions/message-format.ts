import type { Message, Role } from '../model/message.ts'
import { isRecord } from '../model/is-record.ts'

/** Where a message list breaks the message format, and what was expected there. */
export interface FormatProblem {
  /** The path of the wrong value, e.g. `messages[3].role`, `messages[1].toolCalls[0].id`. */
  readonly field: string
  /** What the value must be (the words after "must be"). */
  readonly expected: string
  /** The value found (absent for a missing field). */
  readonly got: unknown
}

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool']
/** Every field of a stored message; `ephemeral` is not one: retry feedback is never stored. */
const MESSAGE_KEYS: ReadonlySet<string> = new Set([
  'role',
  'content',
  'toolCalls',
  'reasoning',
  'toolCallId',
  'toolName',
  'isError',
] satisfies (keyof Message)[])
const CALL_KEYS: ReadonlySet<string> = new Set(['id', 'name', 'args'])
const REASONING_KEYS: ReadonlySet<string> = new Set(['text', 'signature', 'redactedData', 'providerMetadata'])
/** Fields only a message of one role carries. */
const ROLE_OF: Readonly<Record<string, Role>> = { toolCalls: 'assistant', reasoning: 'assistant', toolCallId: 'tool', toolName: 'tool', isError: 'tool' }

const isText = (v: unknown): v is string => typeof v === 'string'
const isName = (v: unknown): v is string => typeof v === 'string' && v !== ''
/** `at.key`, or `at["key"]` for a key that is no plain name (bounded: a stored key may be huge). */
export const pathOf = (at: string, key: string): string => (/^[A-Za-z_$][\w$]{0,39}$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key.slice(0, 40))}]`)
const problem = (field: string, expected: string, got: unknown): FormatProblem => ({ field, expected, got })

/** The first key of `value` outside `keys`, as a problem at `at`. */
function unknownKey(value: Record<string, unknown>, keys: ReadonlySet<string>, at: string): FormatProblem | undefined {
  for (const key of Object.keys(value)) {
    if (!keys.has(key)) return problem(pathOf(at, key), `absent (the fields are ${[...keys].join(', ')})`, value[key])
  }
  return undefined
}

function callProblem(call: unknown, at: string): FormatProblem | undefined {
  if (!isRecord(call)) return problem(at, 'a tool call { id, name, args }', call)
  if (!isName(call['id'])) return problem(`${at}.id`, 'a non-empty string', call['id'])
  if (!isName(call['name'])) return problem(`${at}.name`, 'a non-empty string', call['name'])
  return unknownKey(call, CALL_KEYS, at)
}

function reasoningProblem(block: unknown, at: string): FormatProblem | undefined {
  if (!isRecord(block)) return problem(at, 'a reasoning block { text, signature? }', block)
  if (!isText(block['text'])) return problem(`${at}.text`, 'a string', block['text'])
  for (const key of ['signature', 'redactedData'] as const) {
    if (block[key] !== undefined && !isText(block[key])) return problem(`${at}.${key}`, 'a string', block[key])
  }
  if (block['providerMetadata'] !== undefined && !isRecord(block['providerMetadata']))
    return problem(`${at}.providerMetadata`, 'an object', block['providerMetadata'])
  return unknownKey(block, REASONING_KEYS, at)
}

function listProblem(list: unknown, at: string, each: (item: unknown, at: string) => FormatProblem | undefined): FormatProblem | undefined {
  if (!Array.isArray(list)) return problem(at, 'an array', list)
  for (let i = 0; i < list.length; i++) {
    const found = each(list[i], `${at}[${i}]`)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * What is wrong with `message` (at path `at`) as a message of a stored conversation, or `undefined`:
 * a role of the library's, string content, well-formed tool calls (assistant only), a tool result's
 * call id (tool only), reasoning blocks, no other field, and never `ephemeral`.
 */
export function messageProblem(message: unknown, at: string): FormatProblem | undefined {
  if (!isRecord(message)) return problem(at, 'a message { role, content }', message)
  if (Object.hasOwn(message, 'ephemeral'))
    return problem(`${at}.ephemeral`, 'absent (an ephemeral message is retry feedback: never stored, never replayed)', message['ephemeral'])
  const role = message['role']
  if (!ROLES.includes(role as Role)) return problem(`${at}.role`, `one of ${ROLES.map((r) => `"${r}"`).join(', ')}`, role)
  if (!isText(message['content'])) return problem(`${at}.content`, 'a string', message['content'])
  for (const [key, only] of Object.entries(ROLE_OF)) {
    if (message[key] !== undefined && role !== only)
      return problem(pathOf(at, key), `absent on a message of role "${role}" (only "${only}" messages carry it)`, message[key])
  }
  if (message['toolCalls'] !== undefined) {
    const found = listProblem(message['toolCalls'], `${at}.toolCalls`, callProblem)
    if (found !== undefined) return found
  }
  if (message['reasoning'] !== undefined) {
    const found = listProblem(message['reasoning'], `${at}.reasoning`, reasoningProblem)
    if (found !== undefined) return found
  }
  if (role === 'tool' && !isName(message['toolCallId']))
    return problem(`${at}.toolCallId`, 'the id of the tool call this result answers', message['toolCallId'])
  if (message['toolName'] !== undefined && !isText(message['toolName'])) return problem(`${at}.toolName`, 'a string', message['toolName'])
  if (message['isError'] !== undefined && typeof message['isError'] !== 'boolean') return problem(`${at}.isError`, 'a boolean', message['isError'])
  return unknownKey(message, MESSAGE_KEYS, at)
}

/**
 * What is wrong with one exchange's messages (`first` is the index of its first message in the
 * conversation, for the paths), or `undefined`: each message well-formed, and every tool result
 * answering a tool call made before it in the exchange and not answered yet.
 */
export function exchangeProblem(messages: readonly unknown[], first: number, name = 'messages'): FormatProblem | undefined {
  const open = new Map<string, number>()
  for (let i = 0; i < messages.length; i++) {
    const at = `${name}[${first + i}]`
    const found = messageProblem(messages[i], at)
    if (found !== undefined) return found
    const message = messages[i] as Message
    for (const call of message.toolCalls ?? []) open.set(call.id, (open.get(call.id) ?? 0) + 1)
    if (message.role === 'tool') {
      const id = message.toolCallId as string
      const pending = open.get(id) ?? 0
      if (pending === 0) return problem(`${at}.toolCallId`, 'the id of a tool call made before it in its exchange and not answered yet', id)
      open.set(id, pending - 1)
    }
  }
  return undefined
}

/** `value`'s defined fields among `keys`, or `value` itself when it is no object (for the check to name). */
function picked(value: unknown, keys: ReadonlySet<string>): unknown {
  if (!isRecord(value)) return value
  const copy: Record<string, unknown> = {}
  for (const key of keys) if (value[key] !== undefined) copy[key] = value[key]
  return copy
}

/**
 * A copy of `message` with only the defined fields of the format, its tool calls and reasoning
 * blocks likewise (what a store writes: a runtime extra of an adapter is not stored).
 */
export function formatFields(message: Record<string, unknown>): Record<string, unknown> {
  const copy = picked(message, MESSAGE_KEYS) as Record<string, unknown>
  if (Array.isArray(copy['toolCalls'])) copy['toolCalls'] = copy['toolCalls'].map((call: unknown) => picked(call, CALL_KEYS))
  if (Array.isArray(copy['reasoning'])) copy['reasoning'] = copy['reasoning'].map((block: unknown) => picked(block, REASONING_KEYS))
  return copy
}
