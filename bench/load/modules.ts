/** Classifies the file URLs a probe loaded: per package, and the heavy modules the issue names. */

/** The heavy modules whose loading the report tracks, by where their files live. */
export const HEAVY: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'typebox/compile', pattern: /\/node_modules\/typebox\/build\/compile\// },
  { name: 'rxjs (CommonJS build)', pattern: /\/node_modules\/rxjs\/dist\/cjs\// },
  { name: 'rxjs (ESM build)', pattern: /\/node_modules\/rxjs\/dist\/esm5?\// },
  { name: 'gpt-tokenizer', pattern: /\/node_modules\/gpt-tokenizer\// },
]

/** What one probe loaded. */
export interface LoadedModules {
  readonly files: number
  /** Files per package (`reliability-gate` for this repository's own files). */
  readonly packages: Readonly<Record<string, number>>
  /** Files per heavy module, for the heavy modules that loaded at all. */
  readonly heavy: Readonly<Record<string, number>>
}

function packageOf(url: string): string {
  const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  return match?.[1] ?? 'reliability-gate'
}

export function classify(urls: readonly string[]): LoadedModules {
  const packages: Record<string, number> = {}
  const heavy: Record<string, number> = {}
  for (const url of urls) {
    const name = packageOf(url)
    packages[name] = (packages[name] ?? 0) + 1
    for (const h of HEAVY) if (h.pattern.test(url)) heavy[h.name] = (heavy[h.name] ?? 0) + 1
  }
  return { files: urls.length, packages, heavy }
}
