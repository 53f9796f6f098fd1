import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { expect, it } from 'vitest'
import { extractJson } from '../../src/validation/index.ts'
import { corpora, corpusPath, describeWith } from '../support/requirements.ts'

// Real model outputs from the Berkeley Function Calling Leaderboard (results of 2024-08-11): one JSON
// record per line with the model's `raw` text and whether it parsed as strict JSON. Read in place,
// never copied into the project.
const CORPUS = corpusPath('bfcl/derived/text_outputs_with_json.jsonl.gz')

interface CorpusRecord {
  readonly raw: string
  readonly strict_json_parse_ok: boolean
}

const readRecords = (): CorpusRecord[] =>
  gunzipSync(readFileSync(CORPUS))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CorpusRecord)

describeWith(corpora)('extractJson (BFCL corpus)', () => {
  const records = readRecords()

  it('reads the whole corpus', () => {
    expect(records.length).toBeGreaterThan(16_000)
  })

  it('never throws and extracts a value from at least 85% of the outputs', () => {
    let extracted = 0
    for (const record of records) if (extractJson(record.raw).ok) extracted++
    // Measured: 13,885 of 16,254 (85.4%); the rest are Python literals (True, None, 'quotes'),
    // arithmetic like 1/6, prose without JSON, or answers where one of several calls does not parse
    // (every value is taken or none: 14,226 when the first parsing value was taken alone, dropping
    // the others), which only a repair step could recover. Several values outside tool-call blocks
    // (a retracted value and its correction, calls written in prose) are "return exactly one" since:
    // 13,314 (81.9%). Values written one after another with only separators between them, or each
    // marked as a call (parallel calls), are read as a list again since: 13,836 (85.1%).
    expect(extracted / records.length).toBeGreaterThanOrEqual(0.85)
  })

  it('extracts every output that is strict JSON, directly', () => {
    const strict = records.filter((record) => record.strict_json_parse_ok)
    expect(strict.length).toBeGreaterThan(3_000)
    for (const record of strict) expect(extractJson(record.raw)).toMatchObject({ ok: true, source: 'direct' })
  })
})
