import { describe, expect, it } from 'vitest'
import { createGate, ProviderError, type ReliabilityRule, type ReliabilityScope } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask } from '../support/schemas.ts'

const down = () => new ProviderError('bad gateway', { kind: 'http-5xx', status: 502 })

describe('ReliabilityScope', () => {
  it("gives rules agentfootprint's currentProvider and attemptsPerProvider, counting this attempt at PostDecide", async () => {
    const seen: string[] = []
    const note: ReliabilityRule = {
      when: (s) => {
        seen.push(`${s.phase}:${s.currentProvider}:${JSON.stringify(s.attemptsPerProvider)}`)
        return false
      },
      then: 'fail-fast',
      kind: 'never',
    }
    const gate = createGate({
      providers: [scripted([down(), down()], { name: 'primary' }), scripted(['fine'], { name: 'backup' })],
      preCheck: [note],
      postDecide: [
        note,
        // Two attempts on one provider, then the next one: agentfootprint's max-attempts-per-provider recipe.
        { when: (s) => (s.attemptsPerProvider?.[s.currentProvider ?? ''] ?? 0) >= 2 && s.canSwitchProvider, then: 'retry-other', kind: 'failover' },
        { when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'again' },
      ],
    })
    const result = await gate.run(ask('x'))
    expect(result.response.content).toBe('fine')
    expect(seen).toEqual([
      'pre-check:primary:{}',
      'post-decide:primary:{"primary":1}',
      'pre-check:primary:{"primary":1}',
      'post-decide:primary:{"primary":2}',
      'pre-check:backup:{"primary":2}',
      'post-decide:backup:{"primary":2,"backup":1}',
    ])
  })

  it('says whether the gate has a fallback, so a rule can choose it over fail-fast', async () => {
    let scope: ReliabilityScope | undefined
    const toFallback: ReliabilityRule = {
      when: (s) => {
        scope = s
        return s.errorKind !== 'ok' && s.hasFallback === true
      },
      then: 'fallback',
      kind: 'use-fallback',
    }
    const withFallback = createGate({ providers: scripted([down()]), postDecide: [toFallback], fallback: () => 'canned' })
    expect((await withFallback.run(ask('x'))).response.content).toBe('canned')
    expect(scope?.hasFallback).toBe(true)
    const without = createGate({ providers: scripted([down()]), postDecide: [toFallback] })
    await expect(without.run(ask('x'))).rejects.toMatchObject({ kind: 'http-5xx' })
    expect(scope?.hasFallback).toBe(false)
    // The counts are the scope's own: a rule cannot change what another reads.
    expect(Object.isFrozen(scope?.attemptsPerProvider)).toBe(true)
    expect(JSON.parse(JSON.stringify(scope))).toMatchObject({ currentProvider: 'scripted', hasFallback: false, attemptsPerProvider: { scripted: 1 } })
  })
})
