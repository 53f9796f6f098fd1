/**
 * Middleware: your own links in the attempt chain, with the contract of the built-in policies.
 * Three everyday ones: redacting PII before the request leaves, a response cache keyed on the base
 * request (never on the retry tail), and routing each tenant to its own provider.
 */
import { Type } from 'typebox'
import { Agent, createGate, strictOutputRules, type Middleware, type ModelRequest, type ModelResponse, type Provider } from '../src/index.ts'
import { simulated } from '../src/providers/index.ts'
import { section, traceAgent, watch } from './trace.ts'

const Ticket = Type.Object(
  { category: Type.Union([Type.Literal('billing'), Type.Literal('bug'), Type.Literal('other')]), priority: Type.Integer({ minimum: 1, maximum: 5 }) },
  { additionalProperties: false },
)

const EMAIL = /[\w.+-]+@[\w-]+\.[\w.]+/g
const PHONE = /\+?\d[\d\s-]{7,}\d/g

/** Replaces e-mail addresses and phone numbers in every message before the provider sees them. */
export const redactPii: Middleware = function redactPii(ctx, next) {
  const messages = ctx.request.messages.map((m) => ({ ...m, content: m.content.replace(EMAIL, '[email]').replace(PHONE, '[phone]') }))
  return next({ ...ctx.request, messages })
}

/**
 * A response cache keyed on the base request (never on the retry tail). Only a first attempt is
 * answered from it; every answer overwrites the entry, so after a successful run it holds the
 * accepted one. A cached answer is validated like a fresh one: a bad entry costs one retry, which
 * goes to the model and replaces it.
 */
export function responseCache(store = new Map<string, ModelResponse>()): { link: Middleware; store: Map<string, ModelResponse> } {
  const keyOf = (r: ModelRequest) => JSON.stringify([r.model, r.system, r.messages.map((m) => [m.role, m.content])])
  const link: Middleware = async function responseCache(ctx, next) {
    const key = keyOf(ctx.baseRequest)
    const hit = ctx.attempt === 1 ? store.get(key) : undefined
    if (hit !== undefined) return { response: { ...hit, usage: { inputTokens: 0, outputTokens: 0 } } }
    const result = await next()
    store.set(key, result.response)
    return result
  }
  return { link, store }
}

/** Sends each tenant's calls to its own provider (say, a dedicated deployment), by run metadata. */
export function routeByTenant(byTenant: Readonly<Record<string, Provider>>): Middleware {
  return async function routeByTenant(ctx, next) {
    const tenant = ctx.metadata?.['tenant']
    const provider = typeof tenant === 'string' ? byTenant[tenant] : undefined
    if (provider === undefined) return next()
    return { response: await provider.complete(ctx.request) }
  }
}

export async function middlewareExample(): Promise<void> {
  section('middleware', 'Redact PII on the wire, cache by base request, route by tenant: links of the attempt chain.')
  const seenByModel: string[] = []
  const model = simulated({ seed: 3, faults: ['number-as-string'] })
  const watched: Provider = {
    name: 'support-model',
    complete: (request) => {
      seenByModel.push(request.messages.map((m) => m.content).join(' | '))
      return model.complete(request)
    },
  }
  const cache = responseCache()
  const agent = Agent.create({ provider: watched, model: 'sim-1', name: 'triage' })
    .system('Classify the support ticket. Output JSON.')
    .outputSchema(Ticket)
    .reliability({ postDecide: strictOutputRules(3) })
    .use(redactPii, cache.link)
    .build()
  traceAgent(agent)
  const message = 'I was charged twice, call me at +44 20 7946 0958 or write to ana.lopez@example.com'
  const first = await agent.session().runTyped(message)
  console.log('  value:', first)
  console.log('  the model saw:', seenByModel[0])
  const again = await agent.session().runTyped(message)
  console.log(`  same question in a new session: ${JSON.stringify(again)} (model calls in all: ${seenByModel.length}, cache entries: ${cache.store.size})`)

  const dedicated = simulated({ seed: 9, faults: [], name: 'acme-deployment' })
  const routed: string[] = []
  const gate = createGate({
    providers: watched,
    outputSchema: Ticket,
    postDecide: strictOutputRules(3),
    middleware: [routeByTenant({ acme: { name: 'acme', complete: (r) => (routed.push('acme'), dedicated.complete(r)) } })],
  })
  watch(gate)
  const ask = { messages: [{ role: 'user' as const, content: 'The export button crashes the app.' }] }
  const acme = await gate.run(ask, { metadata: { tenant: 'acme' } })
  console.log(`  tenant acme answered by its own deployment (${routed.length} call): ${JSON.stringify(acme.value)}`)
}

if (import.meta.main) await middlewareExample()
