import { relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SRC, sourceFiles, sourceImports } from '../support/source-imports.ts'

/**
 * DESIGN.md's arrows: agent -> gate -> policies, rules, validation, events and the providers'
 * types, all -> model; policies -> store; gate and agent -> durable (the port, its journal codec). Each folder of src/ may import (types included) only
 * from the folders listed; the entry files at the root of src/ may import anything.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  model: [],
  store: ['model'],
  sessions: ['model', 'store'],
  validation: ['model'],
  policies: ['model', 'store'],
  rules: ['model', 'validation'],
  events: ['model', 'rules', 'validation'],
  providers: ['model', 'validation', 'policies'],
  gate: ['model', 'validation', 'policies', 'rules', 'events', 'store', 'durable'],
  durable: ['model'],
  agent: ['model', 'validation', 'policies', 'rules', 'events', 'gate', 'sessions', 'durable'],
  integrations: ['model', 'validation', 'policies', 'events', 'gate', 'agent', 'providers'],
  otel: ['model', 'events'],
  trace: ['model', 'validation', 'events', 'gate'],
}

const folderOf = (file: string): string => {
  const parts = relative(SRC, file).split('/')
  return parts.length === 1 ? '(root)' : (parts[0] as string)
}

describe('source layering', () => {
  const files = sourceFiles()

  it('knows every folder of src/', () => {
    const folders = new Set(files.map(folderOf))
    folders.delete('(root)')
    expect([...folders].sort()).toEqual(Object.keys(ALLOWED).sort())
  })

  it('imports only along the design arrows: no layer reaches up', () => {
    const wrong: string[] = []
    for (const file of files) {
      const from = folderOf(file)
      if (from === '(root)') continue
      for (const { to } of sourceImports(file)) {
        const target = folderOf(to)
        if (target !== from && !(ALLOWED[from] ?? []).includes(target)) wrong.push(`${relative(SRC, file)} -> ${relative(SRC, to)}`)
      }
    }
    expect(wrong).toEqual([])
  })
})
