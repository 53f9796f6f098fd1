import type { PeerSchemaResult } from '../eval/peer-schema-census.ts'
import { pct, table } from './format.ts'

const n = (x: number) => x.toLocaleString('en-US')

/** The side-by-side census: the same MaskBench schemas through ours, `@mastra/schema-compat` and the AI SDK providers' transforms. */
export function peerSchemaSection(r: PeerSchemaResult): string[] {
  const out: string[] = ['#### Side by side: `@mastra/schema-compat` and the AI SDK providers', '']
  out.push(
    `The same ${n(r.files)} MaskBench schemas${r.sample === undefined ? '' : ` (a seeded sample of about ${n(r.sample.sampleSize)}, stratified by split, at least 10 per split, seed ${r.sample.seed})`} through each tool's transform for each provider, checked on the corpus's own instances with the library's validator.${r.limits === undefined ? '' : ` Each tool runs in worker threads with a heap of ${n(r.limits.heapMb)} MB and ${r.limits.stepSeconds} s per step of one schema; a schema whose transform kills the worker twice (out of memory, over the time limit) is isolated and counted in the tool's *tool failed* column, and the census goes on.`} *Sent*: the tool sends the schema in the provider's native mode (ours refuses what it cannot carry without changing meaning and sends it one mode down instead). *Breaks the provider's rules*: a documented rule of the provider refuses the sent schema with a 400 (\`bench/eval/provider-rules.ts\`; Gemini's \`responseJsonSchema\` documents none). *Meaning changes*, per schema: a valid instance the sent schema rejects other than by closing an open object to its declared properties (after the tool's own forward mapping: ours \`forward\`, Mastra's \`x-optional\` null for absent), a map lost (closed or dropped), an optional property made required with no mapping back. *Invalid accepted*: instances the original rejects that the sent schema accepts (the provider may emit them; the gate rejects every one on its final verdict, see the table above: 0 new accepts). The AI SDK's transforms are not exported (\`normalizeOpenAIJsonSchema\`, \`sanitizeJsonSchema\`, \`sanitizeResponseJsonSchema\` are module-internal): they are read from the request body each provider builds for \`doGenerate({ responseFormat: { type: 'json', schema } })\`, with a capturing \`fetch\`.`,
    '',
  )
  out.push(
    ...table(
      [
        'provider',
        'tool',
        'sent',
        'breaks the provider\u2019s rules',
        'schemas with a meaning change',
        'valid rejected (by closing)',
        'maps lost',
        'optional made required',
        'invalid accepted',
        'not checked',
        'tool failed (out of memory / over the time limit)',
      ],
      r.rows.map((row) => [
        row.target,
        row.tool,
        `${n(row.sent)} / ${n(row.schemas)}`,
        row.target === 'gemini' ? '–' : `${n(row.breaksProviderRules)} (${pct(row.breaksProviderRules, row.sent)})`,
        `**${n(row.changedSchemas)}**`,
        `${n(row.validRejected)} (${n(row.validRejectedByClosing)})`,
        n(row.mapsLost),
        n(row.optionalRequired),
        n(row.invalidAccepted),
        n(row.unchecked + row.uncounted),
        `**${n(row.failed)}**`,
      ]),
    ),
    '',
  )
  const failures = r.rows.filter((row) => row.failures.length > 0)
  if (failures.length > 0 || r.unmeasured.length > 0) {
    out.push('<details><summary>schemas that stopped a worker</summary>', '')
    for (const row of failures) out.push(`- ${row.tool} / ${row.target}: ${row.failures.join('; ')}`)
    if (r.unmeasured.length > 0) out.push(`- not read (the library's validator, in the worker's bounds): ${r.unmeasured.join('; ')}`)
    out.push('', '</details>', '')
  }
  const examples = r.rows.filter((row) => row.examples.length > 0)
  if (examples.length > 0) {
    out.push('<details><summary>examples of meaning changes</summary>', '')
    for (const row of examples) out.push(`- ${row.tool} / ${row.target}: ${row.examples.slice(0, 3).join('; ')}`)
    out.push('', '</details>', '')
  }
  return out
}
