import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'threads',
    // Prints once per run which suites are skipped (no redis-server, no corpora) and how to enable them.
    globalSetup: ['test/support/report-requirements.ts'],
    // CI also writes a JSON summary so .ci/run can print a plain "N passed, N failed" line.
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.ci/test-results.json' }]] : ['default'],
  },
})
