import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PACKAGE_ENTRIES } from '../support/package-entries.ts'
import type { OptionsEntry } from './options-entries/entry.ts'

/**
 * Exported functions that take no options object: type guards, error classes built from the
 * library's own data, converters and rules whose arguments are values, not options.
 */
const NO_OPTIONS: ReadonlySet<string> = new Set([
  'validation:findInstructions',
  'validation:findPii',
  'validation:findSecrets',
  'validation:luhnValid',
  'validation:normalizeForScan',
  'validation:redactMatches',
  '.:isProviderError',
  'trace:formatReplay',
  'trace:formatTrials',
  '.:isRejectionKind',
  '.:isReliabilityFailFastError',
  '.:isSessionCommitError',
  '.:isSessionFormatError',
  '.:isStepConfigError',
  '.:isValidationFailure',
  '.:classifyError',
  '.:lastNValidationErrorsMatch',
  '.:stuckLoopRule',
  '.:failoverRule',
  '.:SessionCommitError',
  '.:SessionFormatError',
  '.:StepConfigError',
  '.:ReliabilityFailFastError',
  '.:ValidationFailure',
  'openai:fromOpenAICompletion',
  'openai:fromOpenAIUsage',
  'anthropic:fromAnthropicMessage',
  'anthropic:fromAnthropicUsage',
  'ai-sdk:aiSdkStopReason',
  'ai-sdk:fromAiSdkResult',
  'ai-sdk:fromAiSdkUsage',
  'ai-sdk:isNoObjectGenerated',
  'ai-sdk:toAiSdkCallOptions',
  'mcp:isMcpToolError',
  'mcp:McpToolError',
  'mcp:retriesTransport',
  'redis:isRedisStoreError',
  'redis:RedisStoreError',
  'redis:isStateLostError',
  'redis:StateLostError',
  'redis:isSessionFormatError',
  'redis:SessionFormatError',
  'sqlite:isSessionFormatError',
  'sqlite:SessionFormatError',
  'postgres:isSessionFormatError',
  'postgres:SessionFormatError',
  'durable:isDurablePort',
  'durable:isDurableRunError',
  'durable:DurableRunError',
  // Both take the engine's own object (a Restate context) or nothing: no options object.
  'restate:restatePort',
  'dbos:dbosPort',
  // An approval's errors, guards and digest: values, never options (its senders' decisions are an entry).
  '.:ApprovalError',
  '.:ApprovalPendingError',
  '.:isApprovalError',
  '.:isApprovalPendingError',
  '.:argsDigest',

  'validation:isCompiledSchema',
  'validation:issueSignature',
  'validation:isValidationFailure',
  'validation:ValidationFailure',
  'validation:checkForbiddenKeys',
  'validation:isForbiddenKey',
  'validation:isPrototypeKey',
  'validation:validateToolArgs',
  'validation:formatIssueLine',
  'validation:issueText',
  'validation:oneLine',
  'validation:renderErrorTemplate',
  'validation:truncateForFeedback',
  'validation:countFeedbackTokens',
  'validation:IncrementalValidator',
  'validation:compileProviderSchema',
  'trace:buildRuns',
  'trace:parseTrace',
  'trace:readTrace',
  'trace:tracePage',
  'trace:tracePageOf',
])

/** Every `options-entries/*.entries.ts` file's entries: one file per area of the library. */
const ENTRY_DIR = join(dirname(fileURLToPath(import.meta.url)), 'options-entries')
const ENTRIES: readonly OptionsEntry[] = (
  await Promise.all(
    readdirSync(ENTRY_DIR)
      .filter((file) => file.endsWith('.entries.ts'))
      .sort()
      .map((file) => import(pathToFileURL(join(ENTRY_DIR, file)).href) as Promise<{ readonly entries: readonly OptionsEntry[] }>),
  )
).flatMap((module) => module.entries)

/** A misspelling "did you mean" must find: the key with its first letter's case flipped. */
const misspelt = (key: string): string => {
  const first = key[0] as string
  const flipped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase()
  return `${flipped}${key.slice(1)}`
}

/** What `call` did: its error (thrown or rejected), or `undefined` when it was accepted. */
async function errorOf(call: () => unknown): Promise<unknown> {
  try {
    await call()
    return undefined
  } catch (error) {
    return error
  }
}

describe('every options entry', () => {
  it('covers every exported function that is not listed as taking no options', async () => {
    const covered = new Set(ENTRIES.flatMap((entry) => entry.covers ?? []))
    const unclassified: string[] = []
    for (const [subpath, load] of Object.entries(PACKAGE_ENTRIES)) {
      const module = await load()
      for (const [name, value] of Object.entries(module)) {
        const id = `${subpath}:${name}`
        if (typeof value === 'function' && !covered.has(id) && !NO_OPTIONS.has(id)) unclassified.push(id)
      }
    }
    expect(unclassified).toEqual([])
  })

  it('names only exports that exist', async () => {
    const exported = new Set<string>()
    for (const [subpath, load] of Object.entries(PACKAGE_ENTRIES)) {
      for (const name of Object.keys(await load())) exported.add(`${subpath}:${name}`)
    }
    const stale = [...NO_OPTIONS, ...ENTRIES.flatMap((entry) => entry.covers ?? [])].filter((id) => !exported.has(id))
    expect(stale).toEqual([])
  })

  for (const entry of ENTRIES) {
    describe(entry.name, () => {
      it.each(entry.keys.map((key) => [key]))('refuses %s misspelt, with "did you mean"', async (key) => {
        const error = await errorOf(() => entry.call({ [misspelt(key)]: true }))
        expect(error).toBeInstanceOf(TypeError)
        expect((error as Error).message).toContain(`did you mean "${key}"`)
      })

      it('refuses a key it does not know', async () => {
        const error = await errorOf(() => entry.call({ surelyNotAnOption: 1 }))
        expect(error).toBeInstanceOf(TypeError)
        expect((error as Error).message).toContain('"surelyNotAnOption"')
      })

      if ((entry.durations ?? []).length > 0) {
        it.each((entry.durations ?? []).flatMap((key) => [2 ** 31, -1, Number.NaN, Number.POSITIVE_INFINITY, 1.5, '100'].map((value) => [key, value])))(
          'refuses %s = %s',
          async (key, value) => {
            const error = await errorOf(() => entry.call({ [key]: value }))
            expect(error).toBeInstanceOf(Error)
            expect((error as Error).message).toContain(key)
          },
        )
      }

      if ((entry.numbers ?? []).length > 0) {
        it.each((entry.numbers ?? []).flatMap((key) => [Number.NaN, Number.POSITIVE_INFINITY, '100'].map((value) => [key, value])))(
          'refuses %s = %s',
          async (key, value) => {
            const error = await errorOf(() => entry.call({ [key]: value }))
            expect(error).toBeInstanceOf(Error)
            expect((error as Error).message).toContain(key)
          },
        )
      }
    })
  }
})
