#!/usr/bin/env node
// The package's bin: `npx reliability-gate view trace.jsonl [--html out.html]`, `npx reliability-gate replay trace.jsonl --config gate.config.js`.
import { main } from './viewer/cli-main.ts'

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  },
)
