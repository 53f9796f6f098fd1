import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** A test's worker process: its stdout so far, and a SIGKILL that waits for the exit. */
export interface Worker {
  readonly child: ChildProcess
  output(): string
  /** Resolves once the worker wrote `line` on a line of its own. */
  said(line: string, timeoutMs?: number): Promise<void>
  kill(): Promise<void>
}

/** Starts `node <script> ...args` (a support file, run with Node's type stripping). */
export function startWorker(script: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Worker {
  const path = fileURLToPath(new URL(script, import.meta.url))
  const child = spawn(process.execPath, ['--no-warnings', path, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    child,
    output: () => output,
    said: (line, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`worker did not say ${line}: ${output.slice(-3000)}`)), timeoutMs)
        const check = (): void => {
          if (output.split('\n').includes(line)) {
            clearTimeout(timer)
            child.stdout?.off('data', check)
            child.off('exit', onExit)
            resolve()
          }
        }
        const onExit = (): void => {
          clearTimeout(timer)
          reject(new Error(`worker exited before saying ${line}: ${output.slice(-3000)}`))
        }
        child.stdout?.on('data', check)
        child.once('exit', onExit)
        check()
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}
