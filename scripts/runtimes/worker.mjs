// Entry point for workerd (`workerd test`): the smoke test as a Worker's test handler.
import { smoke } from './smoke.mjs'

export default {
  async test() {
    console.log(await smoke())
  },
}
