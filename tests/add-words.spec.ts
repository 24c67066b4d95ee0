/**
 * The words the library's Add fact and Import file say (client/add-words.ts): what a fact-add answer did, the
 * scopes the form offers, and an import preview's and commit's counts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { addedWords, addScopes, importCountWords, importedWords, importSideWords } from '../client/add-words.ts'
import type { FactView } from '../src/wire-types.ts'

const fact = (value: string): FactView => ({ subject: 'billing-api', property: 'port', value }) as unknown as FactView

describe('add and import words', () => {
  it('says what the write path did with an added fact', () => {
    assert.equal(
      addedWords({
        outcome: 'saved',
        fact: fact('9000'),
        superseded: [fact('7801')],
        retired: [],
        sensitivityReason: null,
        editId: 1,
      }),
      'Added billing-api · port = 9000, replacing 7801 (now history)',
    )
    assert.equal(
      addedWords({
        outcome: 'saved',
        fact: fact('a@b.co'),
        superseded: [],
        retired: [fact('x')],
        sensitivityReason: 'the value holds an email address',
        editId: 1,
      }),
      'Added billing-api · port = a@b.co; settled the conflict against x; kept as sensitive (the value holds an email address)',
    )
    assert.equal(
      addedWords({ outcome: 'duplicate', fact: fact('7801'), upgraded: true, restated: false, editId: 2 }),
      'Already stored: billing-api · port = 7801, now marked as your own statement',
    )
    assert.match(
      addedWords({ outcome: 'proposed', proposalId: 3, reason: 'near_duplicate', editId: null }),
      /card to review in Proposals \(near duplicate\)/u,
    )
  })

  it('offers global first and every other scope the store holds once', () => {
    assert.deepEqual(
      addScopes([
        { scope: 'global', kind: 'global', name: 'global', facts: 3 },
        { scope: 'project:/src/shop', kind: 'project', name: 'shop', facts: 1 },
        { scope: 'infra', kind: 'label', name: 'infra', facts: 2 },
      ]),
      [
        { value: 'global', label: 'global' },
        { value: 'project:/src/shop', label: 'project shop' },
        { value: 'infra', label: 'label infra' },
      ],
    )
    assert.deepEqual(addScopes([]), [{ value: 'global', label: 'global' }])
  })

  it('counts an import by class, leaving out the empty ones', () => {
    const counts = { new: 2, duplicate: 1, repeated: 0, conflict: 0, tombstoned: 1, invalid: 3 }
    assert.equal(importCountWords(counts), '2 new · 1 already stored · 1 forgotten (refused) · 3 invalid')
    assert.equal(
      importCountWords({ new: 0, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 }),
      'no records',
    )
    assert.equal(
      importedWords({ ...counts, conflict: 1 }),
      'Imported 3 facts (1 as conflicts to settle); 1 already stored; 1 forgotten, refused; 3 invalid, skipped',
    )
  })

  it('tells lines repeated within the file apart from facts already stored', () => {
    const counts = { new: 1, duplicate: 1, repeated: 2, conflict: 0, tombstoned: 0, invalid: 0 }
    assert.equal(importCountWords(counts), '1 new · 1 already stored · 2 repeated in the file')
    assert.equal(importedWords(counts), 'Imported 1 fact; 1 already stored; 2 repeated in the file')
  })

  it('says what else an import changes: stored facts its tombstones forget, with Undo, and pins it drops', () => {
    assert.deepEqual(importSideWords(0, 0), [])
    assert.deepEqual(importSideWords(1, 2), [
      'The file forgets 1 fact stored here; committing forgets it (Undo puts it back).',
      "2 pins in the file are dropped: a pin is your own act, kept only from this store's own export.",
    ])
    assert.equal(
      importedWords({ new: 0, duplicate: 0, repeated: 0, conflict: 0, tombstoned: 0, invalid: 0 }, 1),
      'Imported 0 facts; the file forgot 1 fact stored here',
    )
  })
})
