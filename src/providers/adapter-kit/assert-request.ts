import { sendProblem } from '../../model/request-problem.ts'
import type { ModelRequest } from '../../model/request.ts'

/**
 * Refuses, as `gate.run` and `gate.stream` do, a value no provider could be sent (`null`, a number,
 * a request without `messages`, a message of no role, a getter that throws): a `TypeError` naming the
 * adapter's call (`openai.complete: request must be an object with a \`messages\` array, got null`),
 * before anything of it is read for the wire. A gate checks every request it sends already; this is
 * what an adapter called directly answers, instead of a TypeError from deep inside its body builder.
 */
export function assertRequest(call: string, request: unknown): asserts request is ModelRequest {
  const problem = sendProblem(request)
  if (problem !== undefined) throw new TypeError(`${call}: ${problem}`)
}
