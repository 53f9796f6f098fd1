/** Small formatting helpers for the generated report. */

export function us(ns: number): string {
  const v = ns / 1000
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)
}

export function bytes(n: number | undefined): string {
  if (n === undefined) return '–'
  return n >= 10_240 ? `${(n / 1024).toFixed(1)} KiB` : `${Math.round(n).toLocaleString('en-US')} B`
}

export function ratio(x: number): string {
  return x >= 10 ? `${x.toFixed(0)}x` : `${x.toFixed(2)}x`
}

export function pct(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(2)}%`
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const escapeCell = (cell: string) => cell.replace(/\|/g, '\\|')
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(escapeCell).join(' | ')} |`)]
}
