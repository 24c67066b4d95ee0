/**
 * The one-time rescan at open, on a real store (both bindings): rows written before today's privacy rules (inserted
 * here with raw SQL, bypassing the write's scan) lose the credential they held in clear from every column and the
 * full-text index, are hidden from memory_search, and are listed on one review card; personal data now found makes a
 * fact sensitive, and a personal-data flag today's rules no longer find (a git SSH remote an older detector took for
 * an email) is cleared without a card; a second open, and the open of a clean store, change nothing.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { ToolCall, ToolSpec } from '../src/host/ports.ts'
import type { SearchValue } from '../src/retrieval/render.ts'
import { memorySearchTool } from '../src/tools/memory-search.ts'
import { PRIVACY_RULES_VERSION, rescanRow, type StoredPrivacyRow } from '../src/privacy-rescan.ts'
import { MASK } from '../src/text/privacy.ts'
import { DRIVERS, hexKey } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'
import { indexedTerms } from './helpers/fts-terms.ts'
import { INSTANT } from '../src/store/fact-rows.ts'

const SECRET = 'sk-proj-4fJq9ZxT2mWv8LrN6bYc1HsD'
const SECRET_PART = /4fjq9zxt2mwv8lrn6byc1hsd/iu
const now = '2026-03-01T09:00:00.000Z'
const call: ToolCall = { callId: 'call-1', signal: new AbortController().signal }
const FACT = `INSERT INTO facts (entity_id, subject, property, predicate_key, qualifiers, value, slot_key, claim_key, status,
    evidence_rank, observed_at, recorded_at, valid_from, origin, quote, updated_at)
  VALUES (?, 'billing api', ?, ?, ?, ?, unhex(?), unhex(?), 'active', 0, ${INSTANT}, ${INSTANT}, ${INSTANT}, 'tool', ?, ${INSTANT})`

describe("rescanning one stored row under today's rules", () => {
  const row = (over: Partial<StoredPrivacyRow> = {}): StoredPrivacyRow => ({
    subject: 'billing api',
    property: 'auth mode',
    value: 'enabled',
    qualifiers: {},
    quote: null,
    sensitivity: null,
    modelUseAllowed: true,
    ...over,
  })

  it('leaves a clean row alone', () => {
    assert.equal(rescanRow(row({ quote: 'billing api uses oauth' })), undefined)
  })

  it('masks a credential value whole and hides the fact, and a second rescan changes nothing', () => {
    const next = rescanRow(row({ property: 'api key', value: SECRET, quote: `the api key is ${SECRET}` }))
    assert.ok(next !== undefined)
    assert.equal(next.value, MASK)
    assert.equal(next.quote, `the api key is ${MASK}`)
    assert.equal(next.sensitivity, 'credential')
    assert.equal(next.modelUseAllowed, false)
    assert.doesNotMatch(next.entries.terms, SECRET_PART)
    assert.equal(rescanRow(next), undefined)
  })

  it('masks a credential held in the property (rules version 2) and hides the fact', () => {
    const next = rescanRow(row({ property: `key ${SECRET}`, value: 'enabled' }))
    assert.ok(next !== undefined)
    assert.equal(next.property, `key ${MASK}`)
    assert.equal(next.sensitivity, 'credential')
    assert.equal(next.modelUseAllowed, false)
    assert.doesNotMatch(next.entries.terms, SECRET_PART)
    assert.equal(rescanRow(next), undefined)
  })

  it('keeps the value of a fact already stored as a credential (refuseCredentials off) and masks only its quote', () => {
    const next = rescanRow(
      row({
        property: 'api key',
        value: SECRET,
        quote: `the api key is ${SECRET}`,
        sensitivity: 'credential',
        modelUseAllowed: false,
      }),
    )
    assert.equal(next?.value, SECRET)
    assert.equal(next?.quote, `the api key is ${MASK}`)
    assert.equal(
      rescanRow(row({ property: 'api key', value: SECRET, sensitivity: 'credential', modelUseAllowed: false })),
      undefined,
    )
  })

  it('makes a fact with personal data sensitive without changing its text or its model use', () => {
    const next = rescanRow(row({ qualifiers: { contact: 'ana@example.com' } }))
    assert.equal(next?.sensitivity, 'email')
    assert.equal(next?.found, 'personal')
    assert.equal(next?.modelUseAllowed, true)
    assert.deepEqual(next?.qualifiers, { contact: 'ana@example.com' })
    assert.equal(rescanRow(row({ qualifiers: { contact: 'ana@example.com' }, sensitivity: 'phone' })), undefined)
  })

  it("clears a personal-data flag today's rules no longer find, keeping the text and the model use; never a credential", () => {
    const remote = row({
      subject: 'billing-api',
      property: 'repo',
      value: 'git@example.com:acme/billing-api.git',
      sensitivity: 'email',
    })
    const next = rescanRow(remote)
    assert.equal(next?.sensitivity, null)
    assert.equal(next?.found, 'cleared')
    assert.deepEqual([next?.value, next?.modelUseAllowed], [remote.value, true])
    assert.equal(
      rescanRow({ ...remote, modelUseAllowed: false })?.modelUseAllowed,
      false,
      'an imported sensitive fact stays out of model use',
    )
    assert.equal(rescanRow(row({ value: 'mail alice@example.com', sensitivity: 'email' })), undefined)
    assert.equal(
      rescanRow(row({ property: 'api key', value: 'enabled', sensitivity: 'credential', modelUseAllowed: false })),
      undefined,
    )
  })
})

for (const driver of DRIVERS) {
  describe(`privacy rescan at open (${driver})`, () => {
    let v: VerbHarness
    let searchTool: ToolSpec
    beforeEach(() => {
      v = verbHarness(driver)
      searchTool = memorySearchTool({ memory: v.h.memory, config: () => v.h.config })
    })
    afterEach(() => {
      v.dispose()
    })

    const search = async (query: string): Promise<SearchValue> =>
      (await searchTool.execute({ query }, call)) as SearchValue
    const reopen = (): void => {
      v.h.memory.close()
      v.h.memory.open(v.h.dataDir)
      assert.equal(v.h.memory.available, true)
    }
    const snapshot = (): unknown => ({
      generation: Number(
        v.h.db().get("SELECT n AS generation FROM tallies WHERE tally = 'generation'")?.['generation'],
      ),
      facts: v.h
        .db()
        .all('SELECT * FROM facts ORDER BY id')
        .map((row) => ({ ...row })),
      terms: [...indexedTerms(v.h.db().path)],
      proposals: v.h
        .db()
        .all('SELECT * FROM proposals ORDER BY id')
        .map((row) => ({ ...row })),
    })
    /** Rows as an older version stored them: the secret in clear in the quote, a qualifier and the index. */
    const writeOldRows = (): number[] => {
      const db = v.h.db()
      const entity = db.run(
        `INSERT INTO entities (entity_key, display, created_at) VALUES ('billing api', 'billing api', ?)`,
        now,
      ).lastInsertRowid
      const rows: [string, Record<string, string>, string, string | null][] = [
        ['auth mode', {}, 'enabled', `the api key is ${SECRET} for staging`],
        ['deploy mode', { token: SECRET }, 'blue green', null],
        ['owner', { contact: 'ana@example.com' }, 'platform team', null],
      ]
      const ids = rows.map(([property, qualifiers, value, quote]) => {
        const id = db.run(
          FACT,
          entity,
          property,
          property,
          JSON.stringify(qualifiers),
          value,
          hexKey(`slot-${property}`),
          hexKey(`claim-${property}`),
          now,
          now,
          now,
          quote,
          now,
        ).lastInsertRowid
        db.run(
          'INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)',
          id,
          ['billing api', property, value, ...Object.values(qualifiers), quote ?? ''].join(' '),
        )
        if (quote !== null)
          db.run(
            `INSERT INTO fact_sources (fact_id, origin, evidence_rank, quote, observed_at) VALUES (?, 'tool', 0, ?, ${INSTANT})`,
            id,
            quote,
            now,
          )
        return id
      })
      db.run(`DELETE FROM store_meta WHERE key = 'privacy_rules_version'`)
      return ids
    }

    it('masks a credential held in a quote or a qualifier, hides the fact, marks personal data sensitive and lists them on one card', async () => {
      const [quoted, qualified, emailed] = writeOldRows()
      assert.ok((await search('billing api')).results.length > 0, 'the old rows are visible before the rescan')
      const generation = (): number =>
        Number(v.h.db().get("SELECT n AS generation FROM tallies WHERE tally = 'generation'")?.['generation'])
      const before = generation()
      reopen()
      assert.equal(generation(), before + 1, 'the rescan is one change to the memory')
      const db = v.h.db()
      for (const table of ['facts', 'fact_sources', 'facts_fts', 'fact_identifiers', 'proposals']) {
        assert.doesNotMatch(JSON.stringify(db.all(`SELECT * FROM ${table}`)), SECRET_PART, table)
      }
      for (const id of [quoted, qualified]) {
        const row = db.get('SELECT sensitivity, model_use_allowed, revision FROM facts WHERE id = ?', id ?? 0)
        assert.equal(row?.['sensitivity'], 'credential')
        assert.equal(Number(row?.['model_use_allowed']), 0)
        assert.equal(Number(row?.['revision']), 2)
      }
      assert.equal(db.get('SELECT sensitivity FROM facts WHERE id = ?', emailed ?? 0)?.['sensitivity'], 'email')
      for (const query of ['billing api', 'auth mode', 'deploy mode', 'owner', SECRET]) {
        const found = await search(query)
        assert.equal(found.results.length, 0, query)
      }
      const cards = db.all(`SELECT kind, reason, rows FROM proposals WHERE status = 'pending'`)
      assert.equal(cards.length, 1)
      assert.equal(cards[0]?.['kind'], 'retire')
      assert.equal(cards[0]?.['reason'], 'privacy_rescan')
      const listed = (JSON.parse(String(cards[0]?.['rows'])) as { rows: { fact: { factId: number } }[] }).rows.map(
        (row) => row.fact.factId,
      )
      assert.deepEqual(
        listed.sort((a, b) => a - b),
        [quoted, qualified, emailed],
      )
    })

    it('clears the email flag an older detector put on a git SSH remote, so memory_search finds it again, with no card', async () => {
      const db = v.h.db()
      const entity = db.run(
        `INSERT INTO entities (entity_key, display, created_at) VALUES ('billing api', 'billing api', ?)`,
        now,
      ).lastInsertRowid
      const id = db.run(
        FACT,
        entity,
        'repo',
        'repo',
        '{}',
        'git@example.com:acme/billing-api.git',
        hexKey('slot-repo'),
        hexKey('claim-repo'),
        now,
        now,
        now,
        null,
        now,
      ).lastInsertRowid
      db.run(
        'INSERT INTO facts_fts (rowid, terms) VALUES (?, ?)',
        id,
        'billing api repo git example com acme billing api git',
      )
      db.run(`UPDATE facts SET sensitivity = 'email' WHERE id = ?`, id)
      db.run(`UPDATE store_meta SET value = '2' WHERE key = 'privacy_rules_version'`)
      assert.equal((await search('billing api repo')).results.length, 0, 'hidden while flagged')
      reopen()
      assert.equal(db.get('SELECT sensitivity FROM facts WHERE id = ?', id)?.['sensitivity'], null)
      assert.equal((await search('billing api repo')).results.length, 1)
      assert.equal(db.all(`SELECT id FROM proposals WHERE reason = 'privacy_rescan'`).length, 0)
    })

    it('retires the listed facts when the user accepts the card', async () => {
      const ids = writeOldRows()
      reopen()
      const card = v.h.db().get(`SELECT id, revision FROM proposals WHERE reason = 'privacy_rescan'`)
      const applied = await v.ok('proposal-apply', {
        expectedGeneration: v.generation(),
        operationId: v.op(),
        id: Number(card?.['id']),
        revision: Number(card?.['revision']),
      })
      assert.equal((applied['applied'] as unknown[]).length, 3)
      for (const id of ids)
        assert.equal(v.h.db().get('SELECT status FROM facts WHERE id = ?', id)?.['status'], 'retired')
    })

    it('changes nothing when the store is opened again', () => {
      writeOldRows()
      reopen()
      const before = snapshot()
      reopen()
      assert.deepEqual(snapshot(), before)
    })

    it('changes nothing and makes no card when a clean store opens', () => {
      v.h.memory.write(
        {
          subject: 'billing api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          origin: 'tool',
          quote: 'billing api runs on 7801',
        },
        v.h.config,
      )
      v.h.db().run(`DELETE FROM store_meta WHERE key = 'privacy_rules_version'`)
      const before = snapshot()
      reopen()
      assert.deepEqual(snapshot(), before)
      assert.equal(
        v.h.db().get(`SELECT value FROM store_meta WHERE key = 'privacy_rules_version'`)?.['value'],
        String(PRIVACY_RULES_VERSION),
      )
    })
  })
}
