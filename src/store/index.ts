export type { Reservation, StateStore } from './state-store.ts'
export { memoryStore } from './memory-store.ts'
export type { MemoryStoreOptions } from './memory-store.ts'
