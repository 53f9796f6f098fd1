import type { AgreementResult, ExtractionResult } from '../eval/bfcl.ts'
import type { BfclCuts } from '../eval/bfcl-cuts.ts'
import type { BfclDifferential } from '../eval/bfcl-differential.ts'
import type { SuiteResult } from '../eval/json-schema-suite.ts'
import type { MaskBenchResult } from '../eval/maskbench.ts'
import type { PeerSchemaResult } from '../eval/peer-schema-census.ts'
import type { ProviderSchemaResult } from '../eval/provider-schema.ts'
import type { TauBenchResult } from '../eval/tau-bench.ts'
import type { Machine } from '../support/machine.ts'
import { machineLines } from './bench-sections.ts'
import { pct, table } from './format.ts'
import { peerSchemaSection } from './peer-schema-section.ts'
import { providerSchemaSection } from './provider-schema-section.ts'

interface EvalResults {
  readonly machine: Machine
  readonly jsonSchemaSuite: readonly SuiteResult[]
  readonly maskBench: MaskBenchResult
  readonly providerSchema?: ProviderSchemaResult
  readonly peerSchemas?: PeerSchemaResult
  readonly tauBench: TauBenchResult
  readonly bfclExtraction: ExtractionResult
  readonly bfclAgreement: AgreementResult
  readonly bfclDifferential?: BfclDifferential
  readonly bfclCuts?: BfclCuts
}

const frac = (part: number, whole: number) => `${part.toLocaleString('en-US')} / ${whole.toLocaleString('en-US')} (${pct(part, whole)})`

export function evalSections(r: EvalResults): string[] {
  const out: string[] = ['## `npm run eval`: behaviour on real data', '', ...machineLines(r.machine, process.execArgv)]
  out.push('Corpora are read in place from `../shared/corpora` (archives unpacked into a temporary folder); nothing is copied into the project.', '')

  out.push('### JSON-Schema-Test-Suite (raw-JSON-Schema path)', '')
  out.push(
    `\`compileSchema(schema, { registry }).validate(data)\` on every test, with the suite's ${r.jsonSchemaSuite[0]?.remotes ?? 0} remote documents registered at \`http://localhost:1234/\`; a schema that does not compile fails all its tests. The required \`format.json\` runs with \`formats: 'annotate'\` (the specification's default), the optional \`format/\` files with \`format\` asserted (the library's default).`,
    '',
  )
  out.push(
    ...table(
      ['draft', 'required tests', 'optional tests'],
      r.jsonSchemaSuite.map((s) => [s.draft, frac(s.required.passed, s.required.total), frac(s.optional.passed, s.optional.total)]),
    ),
    '',
  )
  for (const s of r.jsonSchemaSuite) {
    out.push(`<details><summary>${s.draft}: ${s.failingGroups.length} failing groups</summary>`, '')
    out.push(
      ...table(
        ['file', 'group', 'failed', 'compile error'],
        s.failingGroups.map((g) => [g.file, g.group, `${g.failed}/${g.total}`, g.compileError ?? '']),
      ),
      '',
      '</details>',
      '',
    )
  }

  const m = r.maskBench
  out.push('### MaskBench (JSONSchemaBench)', '')
  out.push(
    `Seeded, stratified sample (seed ${m.seed}): ${m.sampled.toLocaleString('en-US')} schemas from ${m.splits.length} splits, every test instance of each.`,
    '',
  )
  out.push(
    ...table(
      ['measure', 'value'],
      [
        ['schemas that fail to compile', frac(m.compileFailures, m.sampled)],
        ['instances: agreement with the reference label', frac(m.instances.agree, m.instances.total)],
        ['valid instances accepted', frac(m.instances.validAgree, m.instances.validTotal)],
        ['invalid instances rejected', frac(m.instances.invalidAgree, m.instances.invalidTotal)],
        ['rejected invalid instances whose feedback names the failing path (exact)', frac(m.pathNamed.exact, m.pathNamed.total)],
        ['… exact, or the missing/unknown property under it', frac(m.pathNamed.exactOrChild, m.pathNamed.total)],
      ],
    ),
    '',
  )
  out.push(
    'Compile failures by reason:',
    '',
    ...table(
      ['reason', 'schemas'],
      m.compileFailureReasons.map((c) => [c.reason, String(c.count)]),
    ),
    '',
  )
  out.push(
    'Disagreements:',
    '',
    ...table(
      ['file', 'label', 'ours', 'detail'],
      m.examples.map((e) => [e.file, e.label ? 'valid' : 'invalid', e.ours ? 'valid' : 'invalid', e.detail]),
    ),
    '',
  )
  out.push(
    '<details><summary>sample per split</summary>',
    '',
    ...table(
      ['split', 'schemas', 'sampled'],
      m.splits.map((s) => [s.split, String(s.schemas), String(s.sampled)]),
    ),
    '',
    '</details>',
    '',
  )
  if (r.providerSchema !== undefined) out.push(...providerSchemaSection(r.providerSchema))
  if (r.peerSchemas !== undefined) out.push(...peerSchemaSection(r.peerSchemas))

  const t = r.tauBench
  out.push('### tau-bench', '')
  out.push(
    `${t.calls.toLocaleString('en-US')} real tool calls (gpt-4o, 200 airline trajectories) checked against their tools' JSON Schemas: **${t.accepted.toLocaleString('en-US')} accepted, ${t.rejected.length} false rejections**${t.unknownTools.length > 0 ? `; unknown tools: ${t.unknownTools.join(', ')}` : ''}.`,
    '',
  )
  if (t.paths !== undefined) {
    out.push(
      'The same arguments on every path into validation:',
      '',
      ...table(
        ['path', 'accepted', 'false rejections'],
        t.paths.map((p) => [p.path, frac(p.accepted, t.calls), String(p.rejected.length)]),
      ),
      '',
    )
  }

  const x = r.bfclExtraction
  const c = x.correctness
  out.push('### BFCL: extraction and repair, judged against the possible answer', '')
  out.push(
    `The ${c.scored.toLocaleString('en-US')} text outputs of the four Python AST categories, through \`validateFinalAnswer\` against the question's call schema; "correct" = the accepted calls match BFCL's \`possible_answer\`. A false repair invents a name or value, or accepts fewer calls than the raw text holds (counted independently from the quoted function names).`,
    '',
  )
  out.push(
    ...table(
      ['measure', 'value'],
      [
        ['correct, no repair', frac(c.strictCorrect, c.scored)],
        ['correct, with repair', frac(c.repairCorrect, c.scored)],
        ['accepted thanks to a repair', c.repairedAccepted.toLocaleString('en-US')],
        ['… of which correct', c.repairedCorrect.toLocaleString('en-US')],
        ['… of which faithful to a wrong call', c.repairedWrong.toLocaleString('en-US')],
        ['false repairs (invented value or dropped call)', c.falseRepairs.toLocaleString('en-US')],
        ['accepted answers holding fewer calls than written', c.droppedCalls.toLocaleString('en-US')],
      ],
    ),
    '',
  )
  out.push(...differentialLines(r.bfclDifferential, c.falseRepairs + c.droppedCalls), ...cutLines(r.bfclCuts))
  out.push('Parsed at all (every JSON value of an answer, or none):', '')
  out.push(
    ...table(
      ['corpus', 'extracted (extractJson)', `with repair${x.repairAvailable ? '' : ' (repair stage not available yet)'}`],
      [
        [`text outputs with JSON (${x.outputs.toLocaleString('en-US')})`, frac(x.extracted, x.outputs), frac(x.extractedWithRepair, x.outputs)],
        [
          `function-call arguments that did not parse (${x.unparseableToolArgs.total})`,
          frac(x.unparseableToolArgs.extracted, x.unparseableToolArgs.total),
          frac(x.unparseableToolArgs.extractedWithRepair, x.unparseableToolArgs.total),
        ],
      ],
    ),
    '',
    `Where the JSON was found: ${Object.entries(x.bySource)
      .map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`)
      .join(', ')}.`,
    '',
  )
  const a = r.bfclAgreement
  out.push("### BFCL: agreement with BFCL's own checker", '')
  out.push(
    `Score records of ${a.models} models, category \`${a.category}\` (Python). BFCL types mapped to JSON Schema (dict→object, float→number, tuple→array, any→{}; the parameter object closed), compiled, then \`validate(args)\`. "Agree" = we reject with the same kind of issue on the parameter BFCL names; for the value-error control group (BFCL found the types right) = we accept.`,
    '',
  )
  out.push(
    ...table(
      ['BFCL verdict', 'records', 'agree', 'we reject at all', 'int given for float'],
      a.rows.map((row) => [row.verdict, String(row.records), frac(row.agree, row.records), String(row.rejectAny), String(row.intForFloat)]),
    ),
    '',
  )
  out.push(
    'Examples of disagreement:',
    '',
    ...table(
      ['BFCL verdict', 'BFCL says', 'we say'],
      a.examples.map((e) => [e.verdict, e.bfcl, e.ours]),
    ),
    '',
  )
  return out
}

function differentialLines(d: BfclDifferential | undefined, falseAccepts: number): string[] {
  if (d === undefined) return []
  const correctRefused = d.changes.filter((c) => c.wasCorrect).length
  const out = ['#### False rejections beside false accepts: the differential against the previous release', '']
  out.push(
    `Every scored answer the previous release (\`${d.release}\`) accepted with a value faithful to the text (ids and hashes in \`bench/eval/bfcl-baseline.json.gz\`) must still be accepted with the same calls, or be listed with its reason in \`bench/eval/bfcl-justified-changes.ts\` (pinned by \`test/corpus/bfcl-differential.test.ts\`).`,
    '',
    ...table(
      ['measure', 'value'],
      [
        ['answers the previous release accepted faithfully', d.baseline.toLocaleString('en-US')],
        ['… still accepted with the same calls', frac(d.kept, d.baseline)],
        ['… accepted with other calls (changed values)', String(d.changes.filter((c) => c.now === 'changed').length)],
        ['… now refused (false rejections unless justified below)', String(d.changes.filter((c) => c.now === 'refused').length)],
        ['… of which correct against possible_answer before', String(correctRefused)],
        ['… of which not justified', String(d.unjustified)],
        ['correct answers gained (refused or wrong before)', d.gainedCorrect.toLocaleString('en-US')],
        ['false accepts (false repairs and dropped calls, above)', falseAccepts.toLocaleString('en-US')],
      ],
    ),
    '',
  )
  if (d.changes.length > 0) {
    out.push(
      '<details><summary>every change, with its reason</summary>',
      '',
      ...table(
        ['answer', 'now', 'reason'],
        d.changes.map((c) => [c.key, c.now, c.reason ?? '**not justified**']),
      ),
      '',
      '</details>',
      '',
    )
  }
  return out
}

function cutLines(x: BfclCuts | undefined): string[] {
  if (x === undefined) return []
  const sample =
    x.every === 1
      ? 'Every scored answer accepted against its call schema'
      : `One output in ${x.every} (outputs 0, ${x.every}, ${2 * x.every}, ...), if accepted against its call schema`
  return [
    '#### Cut answers: every accepted BFCL answer cut at every position',
    '',
    `${sample}: ${x.answers.toLocaleString('en-US')} answers, ${x.cuts.toLocaleString('en-US')} cuts, each validated with repair on and the stop reason \`end\` (a proxy that lost the finish reason, a stop sequence, a stream without its \`done\` chunk). A cut of trailing white space only is the same answer and is not counted.`,
    '',
    ...table(
      ['cuts accepted', 'count'],
      [
        ['with the uncut value (a cut of trailing prose)', x.sameValue.toLocaleString('en-US')],
        ['with a changed value (a closed string or bracket, a completed literal)', x.changedValue.toLocaleString('en-US')],
        ['inside a <tool_call> block opened and never closed, a call begun in it', x.fewerCallsInOpenToolCall.toLocaleString('en-US')],
        ['with whole trailing calls missing, cut right after a closing tag (undetectable)', x.fewerCallsAfterCloser.toLocaleString('en-US')],
        [
          'with whole trailing calls missing, cut between values of a format without closing tags (undetectable)',
          x.fewerCallsWithoutCloser.toLocaleString('en-US'),
        ],
      ],
    ),
    '',
    "The undetectable cuts are the bound: a cut right after a closing tag, or between calls written one per line or one per `<|im_start|>` turn, leaves a complete, shorter answer; the provider's stop reason (`max_tokens`, passed as `truncated`) is then the only signal.",
    '',
  ]
}
