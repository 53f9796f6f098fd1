import { readFileSync } from 'node:fs'
import { trace } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterEach, describe, expect, it } from 'vitest'
import { CONTENDERS, isUnsupported, type Runnable } from '../../bench/contenders/index.ts'
import { PRODUCTION_BUDGET_USD, PRODUCTION_MODEL, productionGate, productionReliability } from '../../bench/contenders/production.ts'
import { scenarioProviders } from '../../bench/contenders/gate.ts'
import { SCENARIOS, USER_MESSAGE, type Scenario } from '../../bench/scenarios.ts'
import { AGENT_PRODUCTION, GATE_PRODUCTION } from '../../bench/targets.ts'
import { memoryStore, sharedBudget, type StateStore } from '../../src/index.ts'

const scenario = (id: Scenario['id']): Scenario => SCENARIOS.find((s) => s.id === id) as Scenario

/** A memoryStore() that records every operation as "method key". */
function recordingStore(): { readonly store: StateStore; readonly ops: string[] } {
  const inner = memoryStore()
  const ops: string[] = []
  const store = new Proxy(inner, {
    get(target, name: keyof StateStore) {
      const method = target[name] as (...args: unknown[]) => unknown
      return (...args: unknown[]) => {
        ops.push(`${String(name)} ${String(args[0])}`)
        return method.apply(target, args)
      }
    },
  })
  return { store, ops }
}

/** A global OpenTelemetry SDK over an in-memory exporter, as a service registers one. */
function registerSdk(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter()
  expect(trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))).toBe(true)
  return exporter
}

async function prepared(name: string, id: Scenario['id']): Promise<Runnable> {
  const contender = await (CONTENDERS.find((c) => c.name === name) as (typeof CONTENDERS)[number]).load()
  const runnable = await contender.prepare(scenario(id))
  if (isUnsupported(runnable)) throw new Error(`${name} does not do (${id})`)
  return runnable
}

describe('the production-config rows use every option of the production configuration', () => {
  afterEach(() => trace.disable())

  it('configures transient retry, failover, strict output with 2 attempts, pricing, a 30 s timeout, a breaker and a budget', () => {
    const config = productionReliability()
    expect(config.postDecide?.map((rule) => rule.kind)).toEqual(['transient-retry', 'failover', 'schema-stuck-loop', 'schema-retry', 'schema-retry-exhausted'])
    expect(config.postDecide?.find((rule) => rule.kind === 'schema-retry')?.label).toContain('up to 2 attempts')
    expect(config.pricing?.[PRODUCTION_MODEL]).toEqual({ input: 2.5, output: 10, cacheRead: 1.25 })
    expect(config.timeoutMs).toBe(30_000)
    expect(typeof (config.breaker as { acquire?: unknown }).acquire).toBe('function')
    expect(config.budget?.usd).toBe(PRODUCTION_BUDGET_USD)
  })

  it('asks the breaker and reserves, then commits, against the shared budget on one store, every attempt', async () => {
    const { store, ops } = recordingStore()
    const { providers, reset } = scenarioProviders(scenario('c'), 2)
    const { gate, stop } = productionGate(providers, store)
    reset()
    const result = await gate.run({ messages: [{ role: 'user', content: USER_MESSAGE }] })
    stop()
    expect(result.attempts.map((a) => a.status)).toEqual(['schema_error', 'success'])
    // The breaker is on a store that may be shared, so each attempt reads it (to acquire, and to record).
    expect(ops.filter((op) => op === 'get rg:breaker:primary').length).toBeGreaterThanOrEqual(2)
    expect(ops.filter((op) => op === 'reserve bench:budget')).toHaveLength(2)
    expect(ops.filter((op) => op === 'settle bench:budget')).toHaveLength(2)
    // Every attempt is priced from the table and committed to the budget.
    expect(result.costUsd).toBeCloseTo(2 * (20 * 2.5 + 20 * 10) * 1e-6, 12)
    expect(await sharedBudget({ store, key: 'bench:budget', usd: PRODUCTION_BUDGET_USD }).spent()).toBeCloseTo(result.costUsd, 12)
  })

  it('gives failover a second provider on every scenario it runs', () => {
    for (const id of ['a', 'b', 'c'] as const) expect(scenarioProviders(scenario(id), 2).providers.map((p) => p.name)).toEqual(['primary', 'secondary'])
  })

  it('the gate row reports its runs through the global OpenTelemetry API: spans once an SDK is registered', async () => {
    const exporter = registerSdk()
    const runnable = await prepared(GATE_PRODUCTION, 'c')
    await runnable.call()
    const spans = exporter.getFinishedSpans()
    expect(spans.map((s) => s.name).sort()).toEqual([`chat ${PRODUCTION_MODEL}`, `chat ${PRODUCTION_MODEL}`, 'invoke_workflow reliability-gate'])
    expect(spans.flatMap((s) => s.events.map((e) => e.name))).toContain('validation_failed')
  })

  it('the Agent row reports its runs through the global OpenTelemetry API: spans once an SDK is registered', async () => {
    const exporter = registerSdk()
    const runnable = await prepared(AGENT_PRODUCTION, 'a')
    await runnable.call()
    const names = exporter.getFinishedSpans().map((s) => s.name)
    expect(names).toContain('invoke_agent bench')
    expect(names).toContain(`chat ${PRODUCTION_MODEL}`)
  })

  it('attach a validation_failed listener and turn off nothing the library does by default', () => {
    const source = readFileSync(new URL('../../bench/contenders/production.ts', import.meta.url), 'utf8')
    expect(source).toContain("gate.on('validation_failed', noop)")
    expect(source).toContain("agent.on('validation_failed', noop)")
    for (const option of ['repair:', 'errorFeedback:', 'feedbackMode:', 'maxFeedbackChars:', 'validateOutput:', 'backoff:', 'maxRetries:']) {
      expect(source, `bench/contenders/production.ts sets ${option}`).not.toContain(option)
    }
  })
})
