/**
 * Naming the machine a conflict's side came from: a side whose devices are all other machines is named by them, a
 * side this machine stated itself (alone or with others) stays unnamed, and memory_search's text shows the note on
 * the named side's line only.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fromNote, machinesPhrase, otherMachines } from '../src/sync/side-origins.ts'
import { renderSearchText, type SearchValue, type SearchValueRow } from '../src/retrieval/render.ts'
import { searchValueSchema } from '../src/retrieval/search-value.schema.ts'

const self = { name: 'work laptop', self: true }
const desktop = { name: 'home desktop', self: false }
const nas = { name: 'nas\n box', self: false }

describe('side origins', () => {
  it('names only the sides that came from other machines', () => {
    const named = otherMachines([
      { factId: 1, devices: [desktop] },
      { factId: 2, devices: [self] },
      { factId: 3, devices: [desktop, self] },
      { factId: 4, devices: [desktop, nas, desktop] },
      { factId: 5, devices: [] },
    ])
    assert.deepEqual(
      [...named.entries()],
      [
        [1, ['home desktop']],
        [4, ['home desktop', 'nas\n box']],
      ],
    )
  })

  it('says the machines in one line', () => {
    assert.equal(fromNote([]), '')
    assert.equal(fromNote(['home desktop']), ' (from home desktop)')
    assert.equal(fromNote(['home desktop', 'nas\n box']), ' (from home desktop and nas box)')
    assert.equal(machinesPhrase(['a', 'b', 'c']), 'a, b and c')
    assert.equal(machinesPhrase(['x'.repeat(100)]), `${'x'.repeat(60)}…`)
  })

  it("memory_search's text names the other machine beside its side, and leaves this machine's side unnamed", () => {
    const row = (id: number, value: string, fromDevices: string[]): SearchValueRow => ({
      id,
      value,
      status: 'conflict',
      evidence: 'explicit_user',
      validFrom: '2026-03-01T09:00:00.000Z',
      validTo: null,
      observedAt: '2026-03-01T09:00:00.000Z',
      source: 'memory_write',
      quote: null,
      sensitive: false,
      sensitivity: null,
      matched: true,
      foldedCount: 0,
      fromDevices,
    })
    const value: SearchValue = searchValueSchema.parse({
      outcome: 'needs_selection',
      query: 'billing port',
      asOf: null,
      channels: ['words'],
      skipped: [],
      degraded: [],
      rerank: null,
      rerankCalibration: null,
      rerankFiltered: 0,
      unvectored: 0,
      timeZone: 'UTC',
      message: null,
      omitted: 0,
      results: [
        {
          subject: 'billing api',
          property: 'port',
          qualifiers: {},
          contested: true,
          multi: false,
          values: [row(7, '7810', []), row(8, '7820', ['home desktop'])],
          moreValues: 0,
          moreValuesShown: false,
          project: null,
          otherProject: false,
          matchedAlias: null,
        },
      ],
    })
    const lines = renderSearchText(value).split('\n')
    const mine = lines.find((line) => line.startsWith('   - 7810 '))
    const theirs = lines.find((line) => line.startsWith('   - 7820 '))
    assert.ok(mine !== undefined && theirs !== undefined, lines.join('\n'))
    assert.doesNotMatch(mine, /\(from /u)
    assert.match(theirs, /\] \(from home desktop\)$/u)
  })
})
