import os from 'node:os'

/** Where and when a result was measured. */
export interface Machine {
  readonly cpu: string
  readonly cores: number
  readonly memoryGiB: number
  readonly platform: string
  readonly node: string
  readonly v8: string
  readonly date: string
  /** 1-minute load average when the run started: other work on the machine shows here. */
  readonly loadAverage: number
}

export function machine(): Machine {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  }
}
