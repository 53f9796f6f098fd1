import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

interface PackageJson {
  readonly version: string
  readonly peerDependencies: Record<string, string>
  readonly devDependencies: Record<string, string>
}

const root = new URL('../../', import.meta.url)
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as PackageJson
const installed = (name: string): string => (JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, root), 'utf8')) as PackageJson).version

type Version = readonly [number, number, number]

function parse(version: string): Version {
  const match = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(version)
  if (match === null) throw new Error(`not a plain version: ${version}`)
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)]
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
}

/** The lowest version a peer range admits, for the two forms the package uses (`>=x.y.z`, `^x.y.z`). */
function lowerBound(range: string): Version {
  const match = /^(>=|\^)(\S+)$/.exec(range)
  if (match === null) throw new Error(`peer range ${range} is neither >=x.y.z nor ^x.y.z: teach this test the form`)
  return parse(match[2] as string)
}

function satisfies(version: string, range: string): boolean {
  const v = parse(version.replace(/-.*$/, ''))
  const low = lowerBound(range)
  if (compare(v, low) < 0) return false
  return range.startsWith('>=') || (low[0] > 0 ? v[0] === low[0] : v[1] === low[1])
}

// The oldest release of each peer the adapters are tested against, installed under an alias.
const OLDEST_TESTED: Record<string, string> = { openai: 'openai-v4', '@anthropic-ai/sdk': 'anthropic-sdk-v0', ai: 'ai-v6', ioredis: 'ioredis-v5' }

describe('peer dependency ranges', () => {
  it('admit the version every test and the demo run against', () => {
    for (const [name, range] of Object.entries(pkg.peerDependencies)) {
      expect({ name, range, ok: satisfies(installed(name), range) }).toEqual({ name, range, ok: true })
    }
  })

  it('start at the major of the oldest release the adapters are tested against, which they admit', () => {
    for (const [name, alias] of Object.entries(OLDEST_TESTED)) {
      const range = pkg.peerDependencies[name] as string
      const oldest = installed(alias)
      // The oldest tested release is inside the range, and the range claims no older major than it.
      expect({ name, oldest, inRange: satisfies(oldest, range) }).toEqual({ name, oldest, inRange: true })
      expect({ name, lowestMajor: lowerBound(range)[0] }).toEqual({ name, lowestMajor: parse(oldest.replace(/-.*$/, ''))[0] })
    }
  })
})
