import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, it } from 'vitest'
import { CORPORA } from '../../bench/support/corpora.ts'

/** Something from outside the project that some suites need (a server binary, a data folder). */
export interface Requirement {
  /** The suites that need it, as the skip line names them: `'Redis store suites'`. */
  readonly suites: string
  /** True when this machine provides it (checked once, on first read). */
  readonly met: boolean
  /** Why it is missing and how to provide it, in one line. */
  readonly missing: string
}

/**
 * True under CI (`CI` set to anything but `''`, `'0'` or `'false'`): there a missing requirement
 * fails the suites that need it, so nothing silently stops being tested.
 */
export const requiredByCi = !['', '0', 'false'].includes(process.env['CI'] ?? '')

/** A requirement whose check runs once, when first read. */
function requirement(suites: string, missing: string, check: () => boolean): Requirement {
  let met: boolean | undefined
  return {
    suites,
    missing,
    get met() {
      met ??= check()
      return met
    },
  }
}

/** A real `redis-server` on PATH: the Redis store suites start their own. */
export const redisServer: Requirement = requirement('Redis store suites', 'redis-server not on PATH (apt-get install redis-server)', () => {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' })
  return probe.error === undefined && probe.status === 0
})

/**
 * A real PostgreSQL server installation (Debian's `postgresql`, under `/usr/lib/postgresql/<major>/bin`):
 * the PostgreSQL session store suites start their own. Without it they run on PGlite only.
 */
export const postgresServer: Requirement = requirement(
  'PostgreSQL server suites',
  'no /usr/lib/postgresql/<major>/bin/postgres (apt-get install postgresql)',
  () => {
    const root = '/usr/lib/postgresql'
    return existsSync(root) && readdirSync(root).some((major) => existsSync(path.join(root, major, 'bin', 'postgres')))
  },
)

/**
 * The `restate-server` binary that `@restatedev/restate-server` installs for this platform: the
 * Restate port suites start their own server on loopback.
 */
export const restateServer: Requirement = requirement(
  'Restate server suites',
  'no restate-server binary for this platform (npm install @restatedev/restate-server)',
  () => {
    try {
      const pkg = createRequire(import.meta.url).resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/package.json`)
      return existsSync(path.join(path.dirname(pkg), 'bin', 'restate-server'))
    } catch {
      return false
    }
  },
)

/** The real-data corpora beside the project (`../shared/corpora`, or `RG_CORPORA_DIR`). */
export const corpora: Requirement = requirement(
  'Corpus suites',
  `${path.relative(process.cwd(), CORPORA) || CORPORA} not found (put the shared corpora beside the project, or set RG_CORPORA_DIR)`,
  () => existsSync(CORPORA),
)

/** The path of a file or folder inside the corpora. */
export const corpusPath = (...segments: readonly string[]): string => path.join(CORPORA, ...segments)

/** The one line that says which suites are skipped, why, and how to enable them. */
export const skipLine = (r: Requirement): string => `${r.suites} skipped: ${r.missing}`

/**
 * `describe`, when `requirement` is met. Otherwise the body is not even collected (so it may read
 * the resource at collection time) and the suite shows as one skipped test that says why; under
 * CI it is one failing test instead.
 *
 * @example
 * describeWith(corpora)('BFCL text outputs', () => { const outputs = load(); it(...) })
 */
export function describeWith(requirement: Requirement): (title: string, body: () => void) => void {
  return (title, body) => {
    if (requirement.met) return describe(title, body)
    if (requiredByCi) {
      return describe(title, () => {
        it(`has what it needs (${requirement.suites})`, () => {
          throw new Error(`${requirement.suites} cannot run under CI: ${requirement.missing}`)
        })
      })
    }
    return describe.skip(title, () => {
      it(`needs ${requirement.missing}`, () => {})
    })
  }
}

/** Every requirement, for the run's summary lines. */
export const REQUIREMENTS: readonly Requirement[] = [redisServer, postgresServer, restateServer, corpora]
