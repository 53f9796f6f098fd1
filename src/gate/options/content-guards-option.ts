import type { Stage } from '../../policies/stage.ts'
import { assertContentGuards, type ContentGuard } from '../../validation/guards/index.ts'
import { answerGuardStage } from '../answer-guard/answer-guard-stage.ts'
import type { GateConfig } from '../gate-config.ts'
import type { LinkEnv } from './link-env.ts'

/** The `contentGuards` option's link: the answer stage of its `output` guards (and the `stream` guards' stops), or none when no guard looks at either. */
export function contentGuardsOption(config: GateConfig<unknown>, env: LinkEnv): Stage<unknown> | undefined {
  const output = guardsOf(config, 'output', env.label)
  if (output.length === 0 && guardsOf(config, 'stream', env.label).length === 0) return undefined
  return answerGuardStage(output, guardsOf(config, 'retry-tail', env.label)) as unknown as Stage<unknown>
}

/** The gate's content guards that look at `surface` (`output`: each answer; `stream`: a stream's deltas; `retry-tail`: a guard's re-ask feedback), in their order. */
export function guardsOf(config: GateConfig<unknown>, surface: 'output' | 'stream' | 'retry-tail', label: string): readonly ContentGuard[] {
  if (config.contentGuards === undefined) return NO_GUARDS
  const on = assertContentGuards(config.contentGuards, `${label}: contentGuards`).filter((g) => g.surfaces.includes(surface))
  return on.length === 0 ? NO_GUARDS : Object.freeze(on)
}

/** Whether `value` is a list of content guards (the options table's check). */
export function isContentGuardList(value: unknown): boolean {
  try {
    assertContentGuards(value, 'contentGuards')
    return true
  } catch {
    return false
  }
}

const NO_GUARDS: readonly ContentGuard[] = Object.freeze([])
