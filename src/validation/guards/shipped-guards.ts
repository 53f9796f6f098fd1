import { assertObject, assertString } from '../../model/argument-checks.ts'
import { option, optionsContract, type OptionsSpec } from '../../model/options-contract.ts'
import { type ContentGuard, type ContentVerdict, contentGuard, GUARD_SURFACES, type GuardSurface, type ToolTrust } from './content-guard.ts'
import { findInstructions } from './find-instructions.ts'
import { findPii, type PiiKind } from './find-pii.ts'
import { findSecrets } from './find-secrets.ts'
import type { PatternMatch } from './pattern-match.ts'
import { redactMatches, unscreenedCut } from './screen-tool-result.ts'

/** Per-tool trust and placement, shared by the shipped guards. */
export interface ShippedGuardOptions {
  /** Where the guard looks. Each shipped guard has its own default. */
  readonly surfaces?: readonly GuardSurface[]
  /** MCP servers (their `serverName`) whose tools' results and descriptions are trusted: not screened. @default [] */
  readonly trustedServers?: readonly string[]
  /** Trust tools marked `openWorldHint: false` (they return no third party's text). @default false */
  readonly trustClosedWorld?: boolean
  /** Trust tools marked `readOnlyHint: true`. @default false */
  readonly trustReadOnly?: boolean
  /** See {@link ContentGuardOptions.onError}. @default 'closed' */
  readonly onError?: 'open' | 'closed'
}

/** Options of {@link piiGuard}. */
export interface PiiGuardOptions extends ShippedGuardOptions {
  /** @default ['card', 'email', 'phone'] */
  readonly kinds?: readonly PiiKind[]
}

/** Options of {@link secretsGuard}. */
export interface SecretsGuardOptions extends ShippedGuardOptions {
  /** Redact each credential, or block the whole content (a tool result is withheld). @default 'redact' */
  readonly action?: 'redact' | 'block'
}

const SURFACES = option.where(
  `a non-empty list of ${GUARD_SURFACES.map((s) => `'${s}'`).join(', ')}`,
  (v) => Array.isArray(v) && v.length > 0 && Array.from(v).every((s) => GUARD_SURFACES.includes(s as GuardSurface)),
)
const SHARED: OptionsSpec<ShippedGuardOptions> = {
  surfaces: SURFACES,
  trustedServers: option.where(
    'a list of strings, none empty (server names)',
    (v) => Array.isArray(v) && Array.from(v).every((s) => typeof s === 'string' && s !== ''),
  ),
  trustClosedWorld: option.boolean(),
  trustReadOnly: option.boolean(),
  onError: option.oneOf('open', 'closed'),
}
const PII_OPTIONS = optionsContract<PiiGuardOptions>('piiGuard', {
  ...SHARED,
  kinds: option.where(
    "a non-empty list of 'card', 'email', 'phone'",
    (v) => Array.isArray(v) && v.length > 0 && Array.from(v).every((k) => k === 'card' || k === 'email' || k === 'phone'),
  ),
})
const SECRETS_OPTIONS = optionsContract<SecretsGuardOptions>('secretsGuard', { ...SHARED, action: option.oneOf('redact', 'block') })
const INSTRUCTIONS_OPTIONS = optionsContract<ShippedGuardOptions>('instructionGuard', SHARED)

/** What a shipped guard is before its options: its name, how much text a stream holds back for it, and where it looks by default. */
interface ShippedGuard {
  readonly name: string
  /** The longest text the guard's patterns match: a stream holds back only this much. */
  readonly lookback: number
  readonly surfaces: readonly GuardSurface[]
}

// An email: 64 + 1 + 9 labels of up to 64 + a 24-letter suffix.
const PII: ShippedGuard = { name: 'pii', lookback: 700, surfaces: GUARD_SURFACES }
// A JWT: three segments of up to 2000, 4000 and 2000.
const SECRETS: ShippedGuard = { name: 'secrets', lookback: 8_010, surfaces: GUARD_SURFACES }
// Five filler-bounded words each side of the rule's keywords.
const INSTRUCTIONS: ShippedGuard = { name: 'instructions', lookback: 260, surfaces: ['tool-result', 'mcp-description'] }

/**
 * Personal data (cards that pass Luhn, emails, phone numbers) redacted as `[REDACTED:<kind>]`, on
 * every surface by default.
 *
 * @example
 * createAgent({ ..., contentGuards: [piiGuard({ kinds: ['card', 'email'] })] })
 */
export function piiGuard(options?: PiiGuardOptions): ContentGuard {
  const o = PII_OPTIONS.check(options)
  const kinds = o.kinds ?? ['card', 'email', 'phone']
  return shipped(PII, o, (text) => {
    const found = findPii(text, kinds)
    return found.length === 0 ? { action: 'allow' } : { action: 'redact', text: redactMatches(text, found), reason: rulesOf(found) }
  })
}

/**
 * API keys, tokens and private keys redacted (or the content blocked), on every surface by default.
 *
 * @example
 * createAgent({ ..., contentGuards: [secretsGuard({ action: 'block', surfaces: ['tool-result'] })] })
 */
export function secretsGuard(options?: SecretsGuardOptions): ContentGuard {
  const o = SECRETS_OPTIONS.check(options)
  const block = o.action === 'block'
  return shipped(SECRETS, o, (text) => {
    const found = findSecrets(text)
    if (found.length === 0) return { action: 'allow' }
    return block
      ? { action: 'block', reason: `it holds a credential (${rulesOf(found)})` }
      : { action: 'redact', text: redactMatches(text, found), reason: rulesOf(found) }
  })
}

/**
 * Instruction-like text (indirect prompt injection: "ignore previous instructions", chat-template
 * tokens, exfiltration, ...; Unicode-normalised, zero-width and homoglyph aware) blocks the content:
 * a tool result is withheld (the model sees a notice), an MCP tool whose description holds it is
 * not listed. Looks at tool results and MCP descriptions by default.
 *
 * @example
 * mcpTools(client, { serverName: 'docs', contentGuards: [instructionGuard({ trustedServers: ['internal'] })] })
 */
export function instructionGuard(options?: ShippedGuardOptions): ContentGuard {
  const o = INSTRUCTIONS_OPTIONS.check(options)
  return shipped(INSTRUCTIONS, o, (text) => {
    const found = findInstructions(text)
    return found.length === 0 ? { action: 'allow' } : { action: 'block', reason: `it holds instruction-like text (${rulesOf(found)})` }
  })
}

type Screen = (text: string) => ContentVerdict

function shipped(guard: ShippedGuard, o: ShippedGuardOptions, screen: Screen): ContentGuard {
  const trusted = new Set(o.trustedServers ?? [])
  const isTrusted = (tool: ToolTrust | undefined): boolean =>
    tool !== undefined &&
    ((tool.server !== undefined && trusted.has(tool.server)) ||
      (o.trustClosedWorld === true && tool.openWorld === false) ||
      (o.trustReadOnly === true && tool.readOnly === true))
  return contentGuard(
    guard.name,
    (input) => {
      // The gate hands a guard its own inputs; a caller of `check` may hand it anything.
      assertObject(input, `content guard '${guard.name}': check's input`, '{ text, surface, tool? }')
      assertString(input.text, `content guard '${guard.name}': check's input.text`)
      return isTrusted(input.tool) ? { action: 'allow' } : screenBounded(input.text, screen)
    },
    {
      surfaces: o.surfaces ?? guard.surfaces,
      lookback: guard.lookback,
      onError: o.onError ?? 'closed',
    },
  )
}

function rulesOf(found: readonly PatternMatch[]): string {
  return [...new Set(found.map((m) => m.rule))].join(', ')
}

/**
 * The verdict on a text of any length in bounded time: past the scanned head, what the patterns
 * did not read is not handed on (a card at the end of a 50 MB tool result would otherwise be
 * allowed unseen and recorded): the head's verdict, the rest cut behind a marker.
 */
function screenBounded(text: string, screen: Screen): ContentVerdict {
  const cut = unscreenedCut(text)
  if (cut === undefined) return screen(text)
  const verdict = screen(cut.head)
  if (verdict.action === 'allow') return { action: 'redact', text: cut.head + cut.marker, reason: 'past the scanned length' }
  if (verdict.action === 'redact') return { ...verdict, text: verdict.text + cut.marker }
  return verdict
}
