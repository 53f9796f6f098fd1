import { REQUIREMENTS, requiredByCi, skipLine } from './requirements.ts'

/**
 * Vitest global setup whose teardown says, once and after the summary, which suites were skipped and
 * how to enable them (under CI: which requirement was missing, so that its suites failed).
 */
export default function reportRequirements(): () => void {
  return () => {
    for (const r of REQUIREMENTS) {
      if (r.met) continue
      console.log(requiredByCi ? `${r.suites} failed: required under CI, but ${r.missing}` : skipLine(r))
    }
  }
}
