import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'threads',
    // CI also writes a JSON summary so .ci/run can print a plain "N passed, N failed" line.
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.ci/test-results.json' }]] : ['default'],
  },
})
