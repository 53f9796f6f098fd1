import type { Re2Compiled, Re2Module } from './re2-engine.ts'
import { spendPatternBudget } from './pattern-budget.ts'
import { isNativeSafe } from './native-safe.ts'
import { translatePattern } from './translate-pattern.ts'

/**
 * A schema `pattern` behind the `RegExp` interface TypeBox calls, run in time linear in the input
 * whatever the pattern: on RE2, or, for the few shapes a backtracking engine runs in linear time
 * anyway (`isNativeSafe`: `^[a-z0-9-]{1,64}$`), on the JS engine. Its `source` and `toString()` are
 * the schema's own pattern, so error messages read as before. Only `test` is supported.
 */
export class Re2Pattern extends RegExp {
  readonly #pattern: string
  readonly #native: boolean
  readonly #main: Re2Compiled | undefined
  readonly #guards: readonly { readonly re: Re2Compiled; readonly negated: boolean }[]

  /** @throws SyntaxError naming what RE2 cannot run (see `translatePattern`). */
  constructor(pattern: string, flags: string, engine: Re2Module) {
    // The JS engine parses it here (its syntax is the schema's contract); it runs it only if native-safe.
    super(pattern, flags.replace(/[gyd]/g, ''))
    this.#pattern = pattern
    this.#native = isNativeSafe(pattern)
    if (this.#native) {
      this.#main = undefined
      this.#guards = []
      return
    }
    const translation = translatePattern(pattern)
    if (!translation.ok)
      throw new SyntaxError(`the pattern ${JSON.stringify(pattern)} uses ${translation.reason}, which the linear-time engine (RE2) cannot run`)
    const { RE2JS } = engine
    let bits = 0
    if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE
    if (flags.includes('m')) bits |= RE2JS.MULTILINE
    if (flags.includes('s')) bits |= RE2JS.DOTALL
    try {
      this.#main = RE2JS.compile(translation.main, bits | (translation.lookbehind ? RE2JS.LOOKBEHINDS : 0))
      this.#guards = translation.guards.map((g) => ({ re: RE2JS.compile(`^(?:${g.body})`, bits), negated: g.negated }))
    } catch (error) {
      throw new SyntaxError(
        `the pattern ${JSON.stringify(pattern)} cannot be run by the linear-time engine (RE2): ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  /** Whether the pattern matches somewhere in `input`, in time linear in its length; `false` past the pattern budget. */
  override test(input: string): boolean {
    return this.match(input) === true
  }

  /** Like `test`, but `undefined` when the input was not checked for want of pattern budget. */
  match(input: string): boolean | undefined {
    const text = String(input)
    if (this.#native) return RegExp.prototype.test.call(this, text)
    // Each RE2 run (the guards', the main one) reads the whole input once.
    if (!spendPatternBudget(text, 1 + this.#guards.length)) return undefined
    for (const guard of this.#guards) if (guard.re.test(text) === guard.negated) return false
    return (this.#main as Re2Compiled).test(text)
  }

  /** Only for a native-safe pattern (what `test` runs on); RE2-run patterns support `test` alone. */
  override exec(input: string): RegExpExecArray | null {
    if (this.#native) return RegExp.prototype.exec.call(this, input)
    throw new TypeError('Re2Pattern supports test() only')
  }

  override toString(): string {
    return this.#pattern
  }
}
