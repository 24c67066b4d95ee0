/**
 * Tombstones in every scope (migration 0026), both drivers: a store whose forgets were tombstoned the way version 25
 * did it (a project-scoped row under its project's keys) is opened with today's code. Each such tombstone takes the
 * key without the project in place (same id, row and date, so undoing the forget still removes it) and then refuses
 * the claim globally and in every project; a key the same claim already holds from a global forget stays with the
 * older tombstone while the project's one keeps blocking its project; a global row's tombstones and a bare hash an
 * import kept are left as they were.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { Database } from '../src/store/database.ts'
import { defaultMigrationsDir, readMigrations } from '../src/store/migrate.ts'
import {
  canonicalEntity,
  canonicalPredicate,
  canonicalQualifiers,
  canonicalValue,
  claimKeyOf,
  evidenceKeyOf,
} from '../src/text/normalize.ts'
import type { Fact, ProjectRef } from '../src/types.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, expectKind, hexKey, openMemory, write, type MemoryHandle, type PartialFact } from './helpers/store.ts'

const LATEST = readMigrations(defaultMigrationsDir()).length
const BILLING: ProjectRef = { key: '/home/ada/src/billing-api', name: 'billing-api' }
const SHOP: ProjectRef = { key: '/home/ada/src/shop-web', name: 'shop-web' }
const LINTER: PartialFact = { subject: 'linter', property: 'tool', value: 'eslint', quote: 'the linter is eslint' }

/** The claim and evidence keys version 25 tombstoned a fact under: its project's, as its row was keyed. */
function version25Keys(fact: Fact, value = fact.value): { claim: string; evidence: string } {
  const project = fact.scope.startsWith('project:') ? fact.scope.slice('project:'.length) : null
  const claim = claimKeyOf(
    canonicalEntity(fact.subject),
    canonicalPredicate(fact.property),
    canonicalQualifiers(fact.qualifiers),
    canonicalValue(value),
    project,
  )
  return { claim, evidence: evidenceKeyOf(fact.quote, claim, project) }
}

type TombstoneRow = { id: number; kind: string; key: string; fact_id: number | null; created_at: string }

for (const driver of DRIVERS) {
  describe(`migration 0026: tombstones in every scope (${driver})`, () => {
    let h: MemoryHandle
    beforeEach(() => {
      h = openMemory(driver, new FakeClock())
    })
    afterEach(() => {
      h.dispose()
    })

    /** Close the memory, let `edit` put the store back as version 25 left it, and reopen it with every migration. */
    function reopenFromVersion25(edit: (db: Database) => void): TombstoneRow[] {
      h.memory.close()
      const db = Database.open({ dataDir: h.dataDir, driver, now: () => h.clock.iso() })
      let before: TombstoneRow[]
      try {
        edit(db)
        db.run('PRAGMA user_version = 25')
        before = tombstonesIn(db)
      } finally {
        db.close()
      }
      h.memory.open(h.dataDir)
      assert.equal(h.memory.status().available, true)
      assert.equal(Number(h.db().get('PRAGMA user_version')?.['user_version']), LATEST)
      return before
    }

    const tombstonesIn = (db: Database): TombstoneRow[] =>
      db.all('SELECT id, kind, key, fact_id, created_at FROM tombstones ORDER BY id') as TombstoneRow[]
    const tombstones = (): TombstoneRow[] => tombstonesIn(h.db())

    it("moves a project fact's tombstones to the keys without the project, in place, and then refuses the claim in every scope", () => {
      const saved = expectKind(write(h.memory, h.config, { ...LINTER, project: BILLING }), 'saved').fact
      h.memory.forgetById(saved.id)
      const old = version25Keys(saved)
      const folded = version25Keys(saved, 'standard')
      const before = reopenFromVersion25((db) => {
        db.run(`UPDATE facts SET folded_from = '["standard"]' WHERE id = ?`, saved.id)
        db.run(`UPDATE tombstones SET key = ? WHERE kind = 'claim'`, old.claim)
        db.run(`UPDATE tombstones SET key = ? WHERE kind = 'evidence'`, old.evidence)
        db.run(
          `INSERT INTO tombstones (kind, key, fact_id, created_at) VALUES ('claim', ?, ?, '2026-02-01T00:00:00.000Z')`,
          folded.claim,
          saved.id,
        )
      })
      const after = tombstones()
      assert.deepEqual(
        after.map(({ id, kind, fact_id, created_at }) => ({ id, kind, fact_id, created_at })),
        before.map(({ id, kind, fact_id, created_at }) => ({ id, kind, fact_id, created_at })),
      )
      const global = version25Keys({ ...saved, scope: 'global' })
      assert.deepEqual(
        after.map((row) => row.key),
        [global.claim, global.evidence, version25Keys({ ...saved, scope: 'global' }, 'standard').claim],
      )
      for (const scope of [{}, { scope: 'infra' }, { project: BILLING }, { project: SHOP }] as const) {
        assert.equal(expectKind(write(h.memory, h.config, { ...LINTER, ...scope }), 'refused').code, 'tombstoned')
        assert.equal(
          expectKind(write(h.memory, h.config, { ...LINTER, value: 'standard', quote: undefined, ...scope }), 'refused')
            .code,
          'tombstoned',
        )
      }
    })

    it("keeps the older tombstone where the claim was forgotten globally too, and the project's still blocks its project", () => {
      const global = expectKind(write(h.memory, h.config, { ...LINTER, quote: undefined }), 'saved').fact
      h.memory.forgetById(global.id)
      const scoped = expectKind(write(h.memory, h.config, { ...LINTER, quote: undefined, project: BILLING }), 'refused')
      assert.equal(scoped.code, 'tombstoned')
      reopenFromVersion25((db) => {
        // A project row forgotten under version 25, whose claim the global forget had not blocked then.
        db.run(
          `UPDATE facts SET scope = ?, claim_key = unhex(?), status = 'forgotten' WHERE id = ?`,
          `project:${BILLING.key}`,
          version25Keys({ ...global, scope: `project:${BILLING.key}` }).claim,
          global.id,
        )
        const keys = version25Keys({ ...global, scope: `project:${BILLING.key}` })
        db.run(
          `INSERT INTO tombstones (kind, key, fact_id, created_at) VALUES ('claim', ?, ?, '2026-03-02T00:00:00.000Z')`,
          keys.claim,
          global.id,
        )
      })
      const rows = tombstones()
      const globalKeys = version25Keys(global)
      const projectKeys = version25Keys({ ...global, scope: `project:${BILLING.key}` })
      assert.deepEqual(
        rows.map((row) => [row.kind, row.key]),
        [
          ['claim', globalKeys.claim],
          ['evidence', globalKeys.evidence],
          ['claim', projectKeys.claim],
        ],
      )
      assert.equal(
        expectKind(write(h.memory, h.config, { ...LINTER, quote: undefined, project: BILLING }), 'refused').code,
        'tombstoned',
      )
      assert.equal(
        expectKind(write(h.memory, h.config, { ...LINTER, quote: undefined, project: SHOP }), 'refused').code,
        'tombstoned',
      )
    })

    it("leaves a global fact's tombstones and a bare hash an import kept as they were; the bare hash still blocks its project", () => {
      const saved = expectKind(
        write(h.memory, h.config, { subject: 'editor', property: 'preferred', value: 'vim', quote: 'I use vim' }),
        'saved',
      ).fact
      h.memory.forgetById(saved.id)
      const imported = version25Keys({
        ...saved,
        subject: 'linter',
        property: 'tool',
        value: 'eslint',
        quote: null,
        scope: `project:${BILLING.key}`,
      })
      reopenFromVersion25((db) => {
        db.run(
          `INSERT INTO tombstones (kind, key, fact_id, created_at) VALUES ('claim', ?, NULL, '2026-01-05T00:00:00.000Z')`,
          imported.claim,
        )
        db.run(
          `INSERT INTO tombstones (kind, key, fact_id, created_at) VALUES ('evidence', ?, NULL, '2026-01-05T00:00:00.000Z')`,
          hexKey('an unrelated quote'),
        )
      })
      const keys = version25Keys(saved)
      assert.deepEqual(
        tombstones().map((row) => row.key),
        [keys.claim, keys.evidence, imported.claim, hexKey('an unrelated quote')],
      )
      assert.equal(
        expectKind(
          write(h.memory, h.config, { subject: 'editor', property: 'preferred', value: 'vim', project: SHOP }),
          'refused',
        ).code,
        'tombstoned',
      )
      assert.equal(
        expectKind(write(h.memory, h.config, { ...LINTER, quote: undefined, project: BILLING }), 'refused').code,
        'tombstoned',
      )
      expectKind(write(h.memory, h.config, { ...LINTER, quote: undefined, project: SHOP }), 'saved')
    })
  })
}
