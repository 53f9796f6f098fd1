import { spawn } from 'node:child_process'

// Node 24 strips types by default; Node 22 needs the flag to run a worker's TypeScript.
const NODE_FLAGS = process.features.typescript === false ? ['--experimental-strip-types'] : []

/**
 * Runs a TypeScript worker script in its own Node process and resolves with the JSON it printed on
 * stdout; rejects with its stderr when it exits non-zero, prints no JSON or outlives `timeoutMs`.
 */
export function runWorker<T>(script: string, args: readonly string[], timeoutMs: number, label: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('error', reject)
    child.once('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`${label} exited with ${code ?? signal}: ${stderr}`))
      try {
        resolve(JSON.parse(stdout) as T)
      } catch {
        reject(new Error(`${label} printed no JSON: ${stdout}${stderr}`))
      }
    })
  })
}
