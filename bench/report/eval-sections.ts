import type { AgreementResult, ExtractionResult } from '../eval/bfcl.ts'
import type { SuiteResult } from '../eval/json-schema-suite.ts'
import type { MaskBenchResult } from '../eval/maskbench.ts'
import type { TauBenchResult } from '../eval/tau-bench.ts'
import type { Machine } from '../support/machine.ts'
import { machineLines } from './bench-sections.ts'
import { pct, table } from './format.ts'

interface EvalResults {
  readonly machine: Machine
  readonly jsonSchemaSuite: readonly SuiteResult[]
  readonly maskBench: MaskBenchResult
  readonly tauBench: TauBenchResult
  readonly bfclExtraction: ExtractionResult
  readonly bfclAgreement: AgreementResult
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

  const t = r.tauBench
  out.push('### tau-bench', '')
  out.push(
    `${t.calls.toLocaleString('en-US')} real tool calls (gpt-4o, 200 airline trajectories) checked against their tools' JSON Schemas: **${t.accepted.toLocaleString('en-US')} accepted, ${t.rejected.length} false rejections**${t.unknownTools.length > 0 ? `; unknown tools: ${t.unknownTools.join(', ')}` : ''}.`,
    '',
  )

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
