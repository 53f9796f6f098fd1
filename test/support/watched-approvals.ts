import { memorySessionStore } from '../../src/index.ts'

/**
 * A memory session store whose approval records are watched: `bodies` holds every record body the
 * store was asked to create, so a test can read what a paused run left in the store.
 */
export function watchedApprovals(): { readonly sessions: ReturnType<typeof memorySessionStore>; readonly bodies: string[] } {
  const store = memorySessionStore()
  const slots = store.approvals as NonNullable<typeof store.approvals>
  const bodies: string[] = []
  const sessions = {
    ...store,
    approvals: { ...slots, create: (id: string, approval: string, body: string) => (bodies.push(body), slots.create(id, approval, body)) },
  }
  return { sessions, bodies }
}
