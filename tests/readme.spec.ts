/**
 * The README's management API as written: every import body its Exchange notes document, filled in field by field
 * and sent through the real verb table and schemas on a real store (both drivers), and the operationId rule it
 * states, checked against the schema's bounds.
 */
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { REPO_ROOT } from '../scripts/dsh-profile.ts'
import { DRIVERS } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')

/** The README's "Management API" section, up to the next second-level heading. */
function managementSection(): string {
  const start = README.indexOf('\n## Management API')
  assert.notEqual(start, -1, 'the README has no "Management API" section')
  const end = README.indexOf('\n## ', start + 1)
  return README.slice(start, end === -1 ? undefined : end)
}

/** One field of a documented body: `name`, `name?`, `a | b` (one of them) or `name: "literal"`. */
interface DocumentedField {
  readonly names: readonly string[]
  readonly literal?: string
  readonly optional: boolean
}

/**
 * Read the README's body notation, e.g. `{mode: "commit", path | content, token}`.
 * @param shape - the braces and what they hold.
 * @returns its fields.
 */
function parseShape(shape: string): DocumentedField[] {
  return shape.replace(/^\{|\}$/gu, '').split(',').map((part) => part.trim()).filter((part) => part !== '').map((part) => {
    const literal = /^(\w+): "([^"]*)"$/u.exec(part)
    if (literal !== null) return { names: [literal[1] ?? ''], literal: literal[2] ?? '', optional: false }
    const optional = part.endsWith('?')
    return { names: part.replace(/\?$/u, '').split('|').map((name) => name.trim()), optional }
  })
}

/** Every way to write a body of this shape: one name from each `a | b`, optional fields left out. */
function variants(fields: readonly DocumentedField[]): { name: string; literal?: string }[][] {
  return fields.filter((field) => !field.optional).reduce<{ name: string; literal?: string }[][]>(
    (bodies, field) => bodies.flatMap((body) => field.names.map((name) => [...body, field.literal === undefined ? { name } : { name, literal: field.literal }])),
    [[]])
}

/** The import bodies the section documents, by mode. */
function documentedImports(): Map<string, DocumentedField[]> {
  const shapes = new Map<string, DocumentedField[]>()
  for (const match of managementSection().matchAll(/`import (\{[^`]*\})`/gu)) {
    const fields = parseShape(match[1] ?? '')
    const mode = fields.find((field) => field.names[0] === 'mode')?.literal
    assert.ok(mode !== undefined, `an import body without a mode: ${match[0]}`)
    shapes.set(mode, fields)
  }
  return shapes
}

/** A file from elsewhere, one fact per line, as a newcomer would write one. */
const FOREIGN = `${JSON.stringify({ subject: 'build server', property: 'region', value: 'eu-west-1' })}\n`
const FOREIGN_PATH = 'imports/servers.jsonl'

/** What the test puts in each documented field; a field it cannot fill fails the test. */
function fill(harness: VerbHarness, name: string, token: string | undefined): unknown {
  switch (name) {
    case 'path': return FOREIGN_PATH
    case 'content': return FOREIGN
    case 'token': return token
    case 'expectedGeneration': return harness.generation()
    case 'operationId': return harness.op()
    default: throw new Error(`the README documents an import field this test cannot fill: ${name}`)
  }
}

function body(harness: VerbHarness, fields: readonly { name: string; literal?: string }[], token?: string): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field.name, field.literal ?? fill(harness, field.name, token)]))
}

for (const driver of DRIVERS) {
  describe(`the README's import bodies as written (${driver})`, () => {
    it('documents a preview and a commit, and the real verb accepts every way the README allows to write each', async () => {
      const shapes = documentedImports()
      assert.deepEqual([...shapes.keys()].sort(), ['commit', 'preview'])
      for (const preview of variants(shapes.get('preview') ?? [])) {
        for (const commit of variants(shapes.get('commit') ?? [])) {
          const harness = verbHarness(driver)
          try {
            mkdirSync(join(harness.h.dataDir, 'imports'), { recursive: true })
            writeFileSync(join(harness.h.dataDir, FOREIGN_PATH), FOREIGN)
            const previewed = await harness.ok('import', body(harness, preview))
            const token = String(previewed['token'])
            const label = `preview ${JSON.stringify(preview.map((field) => field.name))}, commit ${JSON.stringify(commit.map((field) => field.name))}`
            const outcome = await harness.call('import', body(harness, commit, token))
            assert.equal(outcome.ok, true, `${label}: ${outcome.ok ? '' : `${outcome.code} ${outcome.message}`}`)
            assert.equal(harness.h.memory.status().counts?.byStatus['active'], 1, label)
          } finally {
            harness.dispose()
          }
        }
      }
    })
  })
}

describe('the README\'s operationId rule', () => {
  it('states the bounds and characters the fenced verbs enforce', async () => {
    const rule = /`operationId`[^.]*?(\d+) to (\d+) characters from `([^`]+)`/u.exec(managementSection())
    assert.ok(rule !== null, 'the README does not say how long an operationId is and what it may contain')
    const [min, max] = [Number(rule[1]), Number(rule[2])]
    const harness = verbHarness(DRIVERS[0])
    try {
      const fenced = (operationId: string) => harness.call('rebuild', { expectedGeneration: harness.generation(), operationId })
      // Every single character the README lists besides the letter and digit ranges, in one id.
      const punctuation = (rule[3] ?? '').split(' ').filter((token) => token.length === 1).join('')
      for (const id of ['a'.repeat(min), `${punctuation}${'b'.repeat(Math.max(0, min - punctuation.length))}`, 'c'.repeat(max)]) {
        const outcome = await fenced(id)
        assert.equal(outcome.ok, true, `${id}: ${outcome.ok ? '' : outcome.message}`)
      }
      for (const id of ['d'.repeat(min - 1), 'e'.repeat(max + 1), `${'f'.repeat(min)} g`, `${'h'.repeat(min)}/i`]) {
        const outcome = await fenced(id)
        assert.equal(outcome.ok ? 'accepted' : outcome.code, 'invalid_arguments', id)
      }
    } finally {
      harness.dispose()
    }
  })
})
