// The closing line of .ci/run: "N passed, N failed, N skipped" over the vitest suite
// (.ci/test-results.json, written when CI is set), the runtime smoke tests (.ci/runtimes.log) and
// the package lint (`lint=ok|failed` argument). A step that left no results counts as one failure.
import { existsSync, readFileSync } from 'node:fs'

let passed = 0
let failed = 0
let skipped = 0

if (existsSync('.ci/test-results.json')) {
  const r = JSON.parse(readFileSync('.ci/test-results.json', 'utf8'))
  // A file that fails before any test ran (an import error) has no assertion results of its own.
  const brokenFiles = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length
  // Name every failure here, at the end of the log, where a truncated CI log still shows it.
  for (const file of r.testResults) {
    if (file.status === 'failed' && file.assertionResults.length === 0)
      console.log(
        `FAILED (file did not run): ${file.name}\n  ${String(file.message ?? '')
          .split('\n')
          .slice(0, 6)
          .join('\n  ')}`,
      )
    for (const t of file.assertionResults) {
      if (t.status === 'failed')
        console.log(
          `FAILED: ${file.name} > ${t.fullName}\n  ${String(t.failureMessages?.[0] ?? '')
            .split('\n')
            .slice(0, 8)
            .join('\n  ')}`,
        )
    }
  }
  passed += r.numPassedTests
  failed += r.numFailedTests + brokenFiles
  skipped += r.numPendingTests + r.numTodoTests
} else {
  console.log('npm test left no vitest results (the type-check failed, or vitest did not start): counted as 1 failure')
  failed++
}

const runtimes = existsSync('.ci/runtimes.log') ? /runtimes: (\d+) passed, (\d+) failed/.exec(readFileSync('.ci/runtimes.log', 'utf8')) : null
if (runtimes) {
  passed += Number(runtimes[1])
  failed += Number(runtimes[2])
} else {
  console.log('the runtime smoke tests left no summary: counted as 1 failure')
  failed++
}

if (process.argv.includes('lint=ok')) passed++
else failed++

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
