import type { EventTags } from './event-map.ts'

/** The tags a run's events carry besides its id: the agent's turn and the caller's metadata, when set. */
export function eventTags(turn: number | undefined, metadata: Readonly<Record<string, unknown>> | undefined): EventTags {
  const tags: { -readonly [K in keyof EventTags]: EventTags[K] } = {}
  if (turn !== undefined) tags.turn = turn
  if (metadata !== undefined) tags.metadata = metadata
  return tags
}
