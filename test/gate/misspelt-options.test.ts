import { describe, expect, it } from 'vitest'
import { Agent, createGate } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

describe('misspelt options are refused where they are written', () => {
  it.each([
    ['outputschema', 'outputSchema'],
    ['postdecide', 'postDecide'],
    ['timeoutMS', 'timeoutMs'],
  ])('createGate refuses %s, suggesting %s', (key, near) => {
    expect(() => createGate({ providers: scripted(['x']), [key]: true } as never)).toThrow(
      new RegExp(`createGate: unknown option "${key}" \\(did you mean "${near}"\\?\\)`),
    )
  })

  it('bounds a huge or newline-holding option name in the message', () => {
    const key = `a\n${'x'.repeat(10_000)}`
    let message = ''
    try {
      createGate({ providers: scripted(['x']), [key]: 1 } as never)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^createGate: unknown option /)
    expect(message).not.toContain('\n')
    expect(message.length).toBeLessThan(1_000)
  })

  it('Agent.reliability and Agent.create refuse misspelt keys too', () => {
    const builder = Agent.create({ provider: scripted(['x']) })
    expect(() => builder.reliability({ postdecide: [] } as never)).toThrow(/Agent\.reliability: unknown option "postdecide" \(did you mean "postDecide"\?\)/)
    expect(() => Agent.create({ provider: scripted(['x']), maxRetries: 3 } as never)).toThrow(/Agent\.create: unknown option "maxRetries"/)
  })
})
