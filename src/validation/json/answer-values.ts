import type { JsonSegment } from './json-segments.ts'

/**
 * What may stand between two values of one answer for them to be read as a list (parallel calls):
 * white space, commas, chat-template control tokens with their role word (`<|im_start|>assistant`),
 * tool-call tags (`<tool_call>`, `</tool_call>`: an opener or a closer missing is still a boundary) and
 * code-fence markers with their language. Anything else (a word of prose) separates an answer from a
 * remark: "Actually, ...", "For example: ...".
 */
const SEPARATOR =
  /(?:\s+|,|<\|[^|<>\n]{0,64}\|>(?:[ \t]*(?:assistant|model|tool|function|ipython)\b)?|<\?xml[^<>\n]{0,80}[?/]>|<\/?(?:[A-Za-z_]*(?:tool|function)[A-Za-z_]*s?|calls?)>|```[\w+-]*)/iy

/**
 * The values that make up a final answer, of all the JSON-looking values in it: its only value; its
 * tool-call blocks (one per call, joined into a list in order) when every value sits in one; or its
 * values written one after another with nothing but separators between them (one per line,
 * comma-separated, one per `<|im_start|>` turn, one per fence, a `<tool_call>` opener or closer
 * missing): the shapes models write parallel calls in; or values each marked as a call, whatever prose
 * stands between them (each right after a chat control token such as `<|im_start|>`, an `<?xml?>`
 * marker or a tool-call tag, or written as a call envelope `{"name": ..., "arguments": ...}`). Prose
 * before the first value and after the last is the model's comment on them. Other values with prose
 * between them (a value the model retracted,
 * "Actually, the correct amount is ...", or a prose example after a tagged call) are no answer at all:
 * `several` says how many values there are and how many sit outside tool-call blocks, for the
 * feedback. Never one value picked out of several.
 *
 * @example
 * answerValues(findJsonSegments('{"amount": 5} Actually: {"amount": 6}'), '{"amount": 5} Actually: {"amount": 6}') // { several: 2, outside: 2 }
 */
export function answerValues(segments: readonly JsonSegment[], text: string): { readonly values: readonly JsonSegment[] } | SeveralValues {
  if (segments.length > 0 && isRefusalWithCode(segments, text)) return { values: [] }
  if (segments.length <= 1) return { values: segments }
  const outside = segments.filter((s) => !s.tagged).length
  const gaps = gapsBetween(segments, text)
  if (outside === 0 || gaps === 'separators' || segments.every((s) => isMarkedCall(s, text))) return { values: segments }
  return gaps === 'touching' ? { several: segments.length, outside, touching: true } : { several: segments.length, outside }
}

/** An answer of several values that is no list: how many, how many outside tool-call blocks, and whether nothing but touching stands between them. */
export interface SeveralValues {
  readonly several: number
  readonly outside: number
  /** No prose between the values, but some touch (`{"a": 2}{}`): a slip, which the feedback names as such. */
  readonly touching?: true
}

// A chat control token (with its role word), an `<?xml?>` marker or a tool-call tag right before a value
// (`<|im_start|>name(` too), `(name arguments:` before it, or a tool-call closer right after it: the
// model marked the value as a call, whatever prose it writes between calls.
const TOOL_TAG = '(?:[A-Za-z_]*(?:tool|function)[A-Za-z_]*s?|calls?)'
const MARK_BEFORE = new RegExp(
  String.raw`(?:(?:<\|[^|<>\n]{0,64}\|>(?:[ \t]*(?:assistant|model|tool|function|ipython))?|<\?xml[^<>\n]{0,80}[?/]>|<\/?${TOOL_TAG}>)\s*(?:[A-Za-z_][\w.]{0,64}\()?|\(\s*[A-Za-z_][\w.]{0,64}\s+(?:arguments|args|parameters)\s*:\s*)$`,
  'i',
)
const CLOSER_AFTER = new RegExp(String.raw`\s*<\/${TOOL_TAG}>`, 'iy')
// How far before a value its marker is looked for.
const MARK_REACH = 96

/**
 * Whether the model marked a value as a call: it sits in a tool-call block, right after a chat control
 * token (`<|im_start|>`: models trained on one template write it in place of `<tool_call>`) or a
 * tool-call tag, or right before a tool-call closer (its opener missing).
 */
function isMarkedCall(segment: JsonSegment, text: string): boolean {
  if (segment.tagged || isCallEnvelope(segment.text)) return true
  if (MARK_BEFORE.test(text.slice(Math.max(0, segment.start - MARK_REACH), segment.start))) return true
  if (!segment.closed) return false
  CLOSER_AFTER.lastIndex = segment.start + segment.text.length
  return CLOSER_AFTER.test(text)
}

// The envelope of a call in every tool-call format: a name and its arguments (or parameters).
const NAME_KEY = /["']name["']\s*:/
const ARGUMENTS_KEY = /["'](?:arguments|parameters)["']\s*:/

// A `(name, {args})` pair as a list or a Python tuple, or a list of them: `['f', {...}]`, `[('f', {...})]`.
const NAME_ARGS_PAIR = /^\[\s*\(?\s*["'][A-Za-z_][\w.]{0,64}["']\s*,\s*\{/

/**
 * Whether a value is written as a call, or a list of calls: `{"name": ..., "arguments": {...}}` (or
 * `parameters`), or a `(name, {args})` pair.
 */
function isCallEnvelope(text: string): boolean {
  const first = text.charCodeAt(0)
  if (first === 91 && NAME_ARGS_PAIR.test(text)) return true
  return (first === 123 || first === 91) && NAME_KEY.test(text) && ARGUMENTS_KEY.test(text)
}

/**
 * What stands between each value and the next: separators only (see {@link SEPARATOR}), a list; or,
 * with no prose anywhere, values that touch (`{"a": 2}{}`: a slip, not a list, since something
 * separates two calls); or prose somewhere.
 */
function gapsBetween(segments: readonly JsonSegment[], text: string): 'separators' | 'touching' | 'prose' {
  let touching = false
  for (let k = 1; k < segments.length; k++) {
    const before = segments[k - 1] as JsonSegment
    // A value cut off before its end is followed by whatever cut it: no list is read across it.
    if (!before.closed) return 'prose'
    let at = before.start + before.text.length
    const end = (segments[k] as JsonSegment).start
    if (at === end) touching = true
    while (at < end) {
      SEPARATOR.lastIndex = at
      if (!SEPARATOR.test(text) || SEPARATOR.lastIndex > end) return 'prose'
      at = SEPARATOR.lastIndex
    }
  }
  return touching ? 'touching' : 'separators'
}

/**
 * The feedback for an answer holding `several` JSON values with prose between them (or touching:
 * written back to back), `outside` of them outside tool-call blocks. It names what was found and never asks for fewer values: a model
 * making parallel calls is asked to write them without prose between, not to drop any.
 */
export function severalValuesMessage(answer: SeveralValues): string {
  const where = answer.outside < answer.several ? ` (${answer.outside} of them outside tool-call blocks)` : ''
  if (answer.touching === true) {
    return (
      `the answer holds ${answer.several} separate JSON values written back to back with nothing between them${where}, so where one ends and the next begins is unclear; ` +
      'send the answer as one JSON value (several calls: one per <tool_call> block, or one JSON list)'
    )
  }
  return (
    `the answer holds ${answer.several} separate JSON values with prose between them${where}, so which one is the answer is unclear; ` +
    'send the answer alone, without remarks or examples between values (several calls: one per <tool_call> block, or one JSON list)'
  )
}

// How a refusal opens: "I'm sorry, but I cannot ...", "Unfortunately, ...", "As an AI ...".
const REFUSAL =
  /^\W{0,8}(?:I['’]m sorry|I am sorry|I apologi[sz]e|sorry,|I (?:cannot|can['’]t|can not|am unable|['’]m unable|am not able|do not have|don['’]t have)|unfortunately\b|as an ai\b)/i
// Code around a value on its line: an assignment (`payload = {`), a keyword argument (`json={`) or a call (`f({`, `f(url, {`).
const CODE_BEFORE = /(?:=|\(|\([^)\n]*,)[ \t]*$/
// How far back on its line the code before a value is looked for.
const CODE_REACH = 120

/**
 * Whether the answer is a refusal whose every value sits in code: in a code fence of another language
 * than JSON, in inline code, or as an assigned value or a function's argument. Such a value is a code
 * sample (`requests.post(url, json={...})`), never the answer the model refused to give.
 */
function isRefusalWithCode(segments: readonly JsonSegment[], text: string): boolean {
  if (!REFUSAL.test(text.trimStart())) return false
  return segments.every((s) => {
    if (s.fenced) return s.code
    const line = text.slice(Math.max(0, s.start - CODE_REACH), s.start)
    const before = line.slice(line.lastIndexOf('\n') + 1)
    return before.endsWith('`') || CODE_BEFORE.test(before)
  })
}
