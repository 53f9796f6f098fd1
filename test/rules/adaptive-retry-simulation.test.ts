import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { Type } from 'typebox'
import { expect, it } from 'vitest'
import { untar } from '../../bench/support/corpora.ts'
import { adaptiveRetry, createGate, type Provider, reliabilityProfile, type ReliabilityRule, strictOutputRules } from '../../src/index.ts'
import { corpora, describeWith } from '../support/requirements.ts'

const Schema = Type.Object({ n: Type.Integer() })
const PRICING = Object.freeze({ input: 1, output: 4 })
const WARMUP = 60
const RUNS = 120

/** Per-model accuracy on BFCL's `simple` category (2024-08-11 results, 71 models), read from the score archive. */
function bfclAccuracies(): Map<string, number> {
  const root = path.join(untar('bfcl/results-2024-08-11/score.tar.gz'), 'score')
  const out = new Map<string, number>()
  for (const model of readdirSync(root)) {
    let first: string
    try {
      first = readFileSync(path.join(root, model, 'simple_score.json'), 'utf8').split('\n', 1)[0] ?? ''
    } catch {
      continue
    }
    const accuracy = (JSON.parse(first) as { accuracy?: unknown }).accuracy
    if (typeof accuracy === 'number') out.set(model, accuracy)
  }
  return out
}

/** mulberry32: a seeded generator, well mixed from its first draw. */
function generator(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

/**
 * A simulated model seeded from its BFCL accuracy `a`: its first answer in a run is valid with
 * probability `a`; its retry r recovers with probability `a² · 0.6^(r-1)` (weaker models recover
 * less, and the gains are in the first retries). Calls are counted per run (the run's own message).
 */
function bfclModel(name: string, accuracy: number, seed: number): Provider {
  const random = generator(seed)
  const calls = new Map<string, number>()
  return {
    name,
    async complete(request) {
      const run = request.messages[0]?.content ?? ''
      const n = calls.get(run) ?? 0
      calls.set(run, n + 1)
      const p = n === 0 ? accuracy : accuracy * accuracy * 0.6 ** (n - 1)
      return { content: random() < p ? '{"n": 1}' : 'not json', toolCalls: [], usage: { inputTokens: 100, outputTokens: 20 }, stopReason: 'end' }
    },
  }
}

interface Tally {
  succeeded: number
  runs: number
  costUsd: number
}

async function simulate(
  providers: readonly Provider[],
  postDecide: readonly ReliabilityRule[],
  runs: number,
  from: number,
  tally: Tally,
  profile?: ReturnType<typeof reliabilityProfile>,
) {
  const gate = createGate({
    providers: providers.map((provider) => ({ provider, model: provider.name })),
    outputSchema: Schema,
    postDecide,
    priceUsage: (usage) => (usage.inputTokens * PRICING.input + usage.outputTokens * PRICING.output) / 1e6,
  })
  const off = profile?.observe(gate)
  for (let i = from; i < from + runs; i++) {
    tally.runs++
    await gate.run({ messages: [{ role: 'user', content: `run ${i}` }] }).then(
      (r) => {
        tally.succeeded++
        tally.costUsd += r.costUsd
      },
      (e: { costUsd?: number }) => (tally.costUsd += e.costUsd ?? 0),
    )
  }
  await profile?.flush()
  off?.()
}

const perSuccess = (t: Tally) => t.costUsd / t.succeeded

describeWith(corpora)('adaptiveRetry on a simulator seeded from BFCL per-model accuracy', () => {
  const accuracies = bfclAccuracies()
  const [backupName, backupAccuracy] = [...accuracies].sort((a, b) => b[1] - a[1])[0] as [string, number]

  it(`lowers cost per success against strictOutputRules(3) at an equal or higher success rate (every BFCL model but the best as primary, the best as backup; ${WARMUP} runs to learn, ${RUNS} measured)`, async () => {
    expect(accuracies.size).toBeGreaterThanOrEqual(60)
    const baseline: Tally = { succeeded: 0, runs: 0, costUsd: 0 }
    const adaptive: Tally = { succeeded: 0, runs: 0, costUsd: 0 }
    let seed = 1
    for (const [model, accuracy] of accuracies) {
      if (model === backupName) continue
      seed++
      const pair = () => [bfclModel(model, accuracy, seed * 31), bfclModel(backupName, backupAccuracy, seed * 37)] as const
      await simulate(pair(), strictOutputRules(3), RUNS, WARMUP, baseline)
      // The profile learns from the same configuration's runs first, then keeps learning while the rule uses it.
      const profile = reliabilityProfile({ buckets: 1 })
      await simulate(pair(), strictOutputRules(3), WARMUP, 0, { succeeded: 0, runs: 0, costUsd: 0 }, profile)
      await simulate(pair(), adaptiveRetry({ profile, maxAttempts: 5, baselineAttempts: 3 }), RUNS, WARMUP, adaptive, profile)
    }
    const figures = {
      baseline: { success: baseline.succeeded / baseline.runs, costPerSuccess: perSuccess(baseline) },
      adaptive: { success: adaptive.succeeded / adaptive.runs, costPerSuccess: perSuccess(adaptive) },
    }
    console.log(`adaptive vs strictOutputRules(3): ${JSON.stringify(figures)}`)
    expect(figures.adaptive.success).toBeGreaterThanOrEqual(figures.baseline.success)
    expect(figures.adaptive.costPerSuccess).toBeLessThan(figures.baseline.costPerSuccess)
  })
})
