import type { ProviderSchemaResult } from '../eval/provider-schema.ts'
import { pct, table } from './format.ts'

const n = (x: number) => x.toLocaleString('en-US')

/** The `compileProviderSchema` census over MaskBench: compile rate per target and the invariant's counts. */
export function providerSchemaSection(r: ProviderSchemaResult): string[] {
  const out: string[] = ['### Provider structured-output schemas (MaskBench)', '']
  out.push(
    `\`compileProviderSchema(schema, target)\` on every MaskBench schema the library's validator compiles (${n(r.files)}), checked on the corpus's own instances, split by the original schema's verdict: an accepted one must map forward to a value the compiled schema accepts (or fall outside a reported narrowing: an open object closed to its declared properties) and back to itself; a refused one must stay refused by the original after the round trip (the gate's final verdict). A schema with a reachable map must be refused, never closed. Rules and sources: \`docs/provider-schemas.md\`.`,
    '',
  )
  out.push(
    ...table(
      [
        'target',
        'compiled',
        'accepted instances',
        'forward accepted',
        'outside a narrowing',
        'forward rejected',
        'changed values',
        'refused instances',
        'left to the gate',
        'new accepts',
        'maps closed / refused',
      ],
      r.targets.map((t) => [
        t.target,
        `${n(t.compiled)} / ${n(t.schemas)} (${pct(t.compiled, t.schemas)})`,
        n(t.valid),
        n(t.forwardAccepted),
        n(t.outsideNarrowing),
        n(t.forwardRejected),
        n(t.changedValues),
        n(t.invalid),
        n(t.leftToGate),
        n(t.newAccepts),
        `${n(t.mapsClosed)} / ${n(t.mapsRefused)}`,
      ]),
    ),
    '',
  )
  const unchecked = r.targets.filter((t) => t.unchecked > 0)
  if (unchecked.length > 0)
    out.push(
      `Not counted: ${unchecked.map((t) => `${t.target} ${n(t.unchecked)}`).join(', ')} compiled schemas the library's own validator could not build a checker for (TypeBox's code generation overflows the stack on them); their instances are not in the table.`,
      '',
    )
  for (const t of r.targets) {
    out.push(`<details><summary>${t.target}: why ${n(t.schemas - t.compiled)} schemas are not compiled</summary>`, '')
    out.push(
      ...table(
        ['reason', 'schemas'],
        t.refusals.map((x) => [x.reason, n(x.count)]),
      ),
      '',
      '</details>',
      '',
    )
  }
  return out
}
