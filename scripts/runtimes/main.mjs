// Entry point for Node, Bun and Deno: prints the smoke test's one-line report, or fails.
import { smoke } from './smoke.mjs'

console.log(await smoke())
