import { describe } from 'vitest'
import { memoryStore } from '../../src/index.ts'
import { stateStoreContract } from '../support/state-store-contract.ts'

describe('StateStore contract: memoryStore', () => {
  stateStoreContract(() => {
    let t = 1_000
    return { store: memoryStore({ now: () => t }), advance: (ms) => Promise.resolve(void (t += ms)) }
  })
})
