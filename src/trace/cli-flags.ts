import { unknownOption } from '../model/known-options.ts'

/** The flags a command takes: those followed by a value, and those that stand alone. */
export interface FlagSpec {
  readonly valued: readonly string[]
  readonly switches: readonly string[]
}

/** A command line read against its {@link FlagSpec}: the one file it names and its flags, or the problem. */
export type ParsedFlags =
  | { readonly ok: true; readonly file: string | undefined; readonly flags: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly problem: string }

/**
 * Reads `args` strictly, the one flag loop of every `reliability-gate` command: one positional
 * argument (the trace file), `--flag value` or `--flag=value` for a valued flag, a switch without a
 * value. An unknown flag is refused with the flag it is closest to ("did you mean"); a flag given
 * twice, a valued flag without its value (the next argument is another flag) or a switch given one
 * is a problem. A valued flag's value may be a negative number (`--min-success -1` is read, then
 * refused by its range).
 */
export function parseFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const known = [...spec.valued, ...spec.switches]
  let file: string | undefined
  const flags = new Map<string, string>()
  const problem = (text: string): ParsedFlags => ({ ok: false, problem: text })
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (!arg.startsWith('-') || arg === '-') {
      if (file !== undefined) return problem(`unexpected argument ${JSON.stringify(arg)} (one trace file at a time)`)
      file = arg
      continue
    }
    const eq = arg.indexOf('=')
    const name = eq < 0 ? arg : arg.slice(0, eq)
    if (!known.includes(name)) return problem((unknownOption({ [name]: true }, known) ?? `unknown option ${name}`).replace('the options are', 'the flags are'))
    if (flags.has(name)) return problem(`${name} is given twice`)
    if (spec.switches.includes(name)) {
      if (eq >= 0) return problem(`${name} takes no value`)
      flags.set(name, '')
      continue
    }
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1)
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('-') && !isNumber(value))) return problem(`${name} needs a value`)
    flags.set(name, value)
  }
  return { ok: true, file, flags }
}

/** A plain decimal number (no hex, no `Infinity`, no blank). */
export function isNumber(text: string): boolean {
  return /^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text) && Number.isFinite(Number(text))
}
