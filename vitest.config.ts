import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'threads',
    // After the summary: one line per missing requirement (redis-server, corpora) saying which suites
    // were skipped and how to enable them.
    globalSetup: ['test/support/report-requirements.ts'],
    // CI also writes a JSON summary so .ci/run can print a plain "N passed, N failed" line.
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.ci/test-results.json' }]] : ['default'],
  },
})
