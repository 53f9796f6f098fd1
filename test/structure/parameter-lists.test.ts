import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { SRC, sourceFiles } from '../support/source-imports.ts'

/** More positional parameters than this and a function takes one named state object instead (STYLE.md). */
const MAX_PARAMETERS = 4

/**
 * The functions still allowed more than {@link MAX_PARAMETERS} positional parameters, keyed
 * `relative/path.ts:name`, each with the one-line reason it keeps them. The list only shrinks: an entry
 * whose function is gone or fixed fails the test until it is removed.
 */
const ALLOWED: Record<string, string> = {
  'agent/session-commit-error.ts:SessionCommitError.constructor': 'public API: new SessionCommitError(...), exported from the package root',
  'store/memory-store.ts:memoryStore.store.reserve': 'public API: StateStore.reserve(key, id, amount, limit, ttlMs)',
  'store/memory-store.ts:memoryStore.sync.reserve': "public API: StateStore.reserve(key, id, amount, limit, ttlMs), mirrored by the store's synchronous face",
  'store/redis/redis-store.ts:redisStore.reserve': 'public API: StateStore.reserve(key, id, amount, limit, ttlMs)',
}

/** How many entries {@link ALLOWED} may hold: lower it as entries go, never raise it. */
const MAX_ALLOWED = 4

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.ConstructorDeclaration
  | ts.AccessorDeclaration

/** The function-like nodes that have a body: declarations of shapes (interfaces, function types) are not counted. */
function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isAccessor(node)
  )
}

/** The name a node declares, when it declares one. */
function declaredName(node: ts.Node): string | undefined {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isClassDeclaration(node) ||
      ts.isClassExpression(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isAccessor(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isPropertyAssignment(node) ||
      ts.isPropertyDeclaration(node)) &&
    node.name !== undefined
  )
    return node.name.getText()
  return undefined
}

/**
 * A function's name in the allowlist: its own name (or the variable or property it is assigned to),
 * qualified by the names of the declarations around it, `Class.method` or `outer.inner`.
 */
function qualifiedName(node: FunctionNode): string {
  const parts: string[] = []
  const own = declaredName(node)
  if (own === undefined && !ts.isVariableDeclaration(node.parent) && !ts.isPropertyAssignment(node.parent)) parts.push('(anonymous)')
  for (let at: ts.Node | undefined = node; at !== undefined && !ts.isSourceFile(at); at = at.parent) {
    const name = declaredName(at)
    if (name !== undefined && name !== parts[0]) parts.unshift(name)
  }
  return parts.join('.')
}

/** One function with too many parameters, as `relative/path.ts:name`, and how many it takes. */
interface LongParameterList {
  readonly key: string
  readonly where: string
  readonly count: number
}

function longParameterLists(): LongParameterList[] {
  const found: LongParameterList[] = []
  for (const file of sourceFiles()) {
    const path = relative(SRC, file)
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      if (isFunction(node) && node.parameters.length > MAX_PARAMETERS) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
        found.push({ key: `${path}:${qualifiedName(node)}`, where: `${path}:${line}`, count: node.parameters.length })
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

const found = longParameterLists()

describe('Parameter lists', () => {
  it('finds functions of every kind: declarations, methods, constructors, arrows and function expressions', () => {
    const probe = ts.createSourceFile(
      'probe.ts',
      [
        'function f(a, b, c, d, e) {}',
        'class K { constructor(a, b, c, d, e) {} m(a, b, c, d, e) {} }',
        'const g = (a, b, c, d, e) => 0',
        'const o = { p: function (a, b, c, d, e) {}, q: (a, b, c, d, e) => 0 }',
      ].join('\n'),
      ts.ScriptTarget.Latest,
      true,
    )
    const names: string[] = []
    const visit = (node: ts.Node): void => {
      if (isFunction(node) && node.parameters.length > MAX_PARAMETERS) names.push(qualifiedName(node))
      ts.forEachChild(node, visit)
    }
    visit(probe)
    expect(names).toEqual(['f', 'K.constructor', 'K.m', 'g', 'o.p', 'o.q'])
  })

  it('names every long parameter list once, so one allowlist entry stands for one function', () => {
    const keys = found.map((f) => f.key)
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([])
  })

  it('takes at most four positional parameters everywhere but the allowlist', () => {
    const unlisted = found.filter((f) => ALLOWED[f.key] === undefined).map((f) => `${f.key} (${f.where}, ${f.count} parameters)`)
    expect(unlisted, 'group the parameters into one named, documented state object').toEqual([])
  })

  it('lists only functions that still take more than four parameters', () => {
    const keys = new Set(found.map((f) => f.key))
    expect(Object.keys(ALLOWED).filter((k) => !keys.has(k))).toEqual([])
  })

  it('gives every allowlist entry a reason', () => {
    for (const [key, reason] of Object.entries(ALLOWED)) expect(reason.trim(), key).not.toBe('')
  })

  it('keeps the allowlist from growing', () => {
    expect(Object.keys(ALLOWED).length).toBeLessThanOrEqual(MAX_ALLOWED)
  })
})
