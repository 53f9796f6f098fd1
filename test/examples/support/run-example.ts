import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const NODE_FLAGS = process.features.typescript === false ? ['--experimental-strip-types'] : []
/** How long one example may run before it is killed. */
export const RUN_TIMEOUT_MS = 20_000

/** Runs one example to completion with `env` added to (or removed from) the environment. */
export function runExample(name: string, env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url))
  const merged: NodeJS.ProcessEnv = { ...process.env }
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete merged[key]
    else merged[key] = value
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, file], { env: merged, stdio: ['ignore', 'pipe', 'pipe'], timeout: RUN_TIMEOUT_MS })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}
