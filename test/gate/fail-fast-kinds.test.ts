import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  defaultStuckLoopRule,
  FAIL_FAST_KINDS,
  FailFastKinds,
  maxCostRule,
  strictOutput,
  strictOutputRules,
  stuckLoopRule,
  truncatedFailFast,
  type ErrorKind,
  type FailFastKind,
  type ReliabilityFailFastError,
  type ReliabilityRule,
} from '../../src/index.ts'
import { MID_STREAM_NOT_RETRYABLE } from '../../src/gate/index.ts'
import { INVALID_RULE } from '../../src/gate/check-rules.ts'
import { ERROR_KINDS } from '../../src/model/index.ts'

const SRC = join(import.meta.dirname, '../../src')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [readFileSync(path, 'utf8')] : []
  })
}

const failFastRules = (rules: readonly ReliabilityRule[] | undefined): string[] => (rules ?? []).filter((r) => r.then === 'fail-fast').map((r) => r.kind)

describe('FailFastKind', () => {
  it('types the error kind as the known kinds, open to the kinds of your rules', () => {
    expectTypeOf<'schema-retry-exhausted'>().toExtend<ReliabilityFailFastError['kind']>()
    expectTypeOf<'my-rule'>().toExtend<ReliabilityFailFastError['kind']>()
    expectTypeOf(FailFastKinds.SchemaStuckLoop).toEqualTypeOf<'schema-stuck-loop'>()
    expectTypeOf(FailFastKinds.ToolCallAbandoned).toEqualTypeOf<'tool-call-abandoned'>()
    expectTypeOf<(typeof FAIL_FAST_KINDS)[number]>().toEqualTypeOf<FailFastKind>()
  })

  it('lists the kind a run ends with when the model abandons a rejected tool call', () => {
    expect(FAIL_FAST_KINDS).toContain('tool-call-abandoned')
  })

  it('lists every error kind a run can end with', () => {
    for (const kind of ERROR_KINDS.filter((k) => k !== 'ok')) expect(FAIL_FAST_KINDS).toContain(kind)
  })

  it('lists the kind of every built-in fail-fast rule', () => {
    const kinds = [
      defaultStuckLoopRule.kind,
      stuckLoopRule(3).kind,
      maxCostRule(1).kind,
      truncatedFailFast.kind,
      MID_STREAM_NOT_RETRYABLE,
      INVALID_RULE,
      ...failFastRules(strictOutputRules(3)),
      ...failFastRules(strictOutput({ stuckAfter: 2 }).postDecide),
    ]
    for (const kind of kinds) expect(FAIL_FAST_KINDS).toContain(kind)
  })

  it('lists every kind the gate and the agent raise by name', () => {
    const literal = sources(SRC).flatMap((text) => [...text.matchAll(/(?:failFast\(\w+, |#fail\(|go: false, kind: )'([a-z0-9-]+)'/g)].map((m) => m[1]))
    const named = sources(SRC).flatMap((text) =>
      [...text.matchAll(/(?:failFast\(\w+, |#fail\(|go: false, kind: )FailFastKinds\.(\w+)/g)].map((m) => m[1] as string),
    )
    const raised = [...literal, ...named.map((name) => (FailFastKinds as Record<string, string>)[name])]
    expect(raised.length).toBeGreaterThan(6)
    for (const kind of raised) expect(FAIL_FAST_KINDS).toContain(kind)
  })

  it('spells every kind of the library in kebab case', () => {
    const kinds = sources(SRC).flatMap((text) => [...text.matchAll(/\bkind: '([^']+)'/g)].map((m) => m[1] as string))
    expect(kinds.length).toBeGreaterThan(10)
    for (const kind of [
      ...kinds,
      ...FAIL_FAST_KINDS,
      ...(strictOutput({ retryOn: ['parse', 'schema', 'timeout', 'http_error', 'rate_limit'] }).postDecide ?? []).map((r) => r.kind),
    ]) {
      expect(kind).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    }
  })
})

describe('ErrorKind', () => {
  it('is listed whole by ERROR_KINDS', () => {
    expectTypeOf<(typeof ERROR_KINDS)[number]>().toEqualTypeOf<ErrorKind>()
  })
})
