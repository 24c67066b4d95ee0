/**
 * Every hot statement's query plan, on both SQLite bindings: a small real store with every kind of row, each hot path
 * driven through the real code (writes of every outcome, memory_search, the directory, per-turn recall, the
 * maintenance pass, status, the facts page, the graph, the review and vector sweeps, a vector search, the page's other
 * views) with Database's statement observer recording what it sends. Each distinct statement's EXPLAIN QUERY PLAN
 * must equal tests/fixtures/query-plans.json, so a dropped or changed index shows up as a changed plan; and no hot
 * statement may scan facts, fact_sources, fact_identifiers, fact_vectors, proposals or entities beyond the named,
 * justified scans below. Regenerate the expectations with UPDATE_QUERY_PLANS=1 after a schema or SQL change, and
 * read the diff: a line that turned into a SCAN is the regression this test exists for.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import type { SqlValue } from '../src/store/connection.ts'
import type { Database } from '../src/store/database.ts'
import {
  HOT_PATHS,
  PAGE_PATHS,
  PLAN_EMBEDDING,
  seedEveryKind,
  StatementLog,
  type DrivenPath,
} from './helpers/hot-paths.ts'
import { DRIVERS } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

const FIXTURE = new URL('./fixtures/query-plans.json', import.meta.url)
const UPDATE = process.env['UPDATE_QUERY_PLANS'] === '1'

/** The tables a hot statement must never scan. */
const WATCHED = new Set(['facts', 'fact_sources', 'fact_identifiers', 'fact_vectors', 'proposals', 'entities'])

/** A scan a hot statement may make, and why it is inherent. */
interface InherentScan {
  readonly table: string
  readonly sql: RegExp
  readonly why: string
}

const INHERENT_SCANS: readonly InherentScan[] = [
  {
    table: 'facts',
    sql: /^INSERT INTO facts \(/u,
    why:
      'the foreign-key check for rows that reference the new fact (facts.superseded_by has no index); the plan lists it, ' +
      'but the bytecode runs it only when the statement broke a foreign key (FkIfZero), so an insert never scans (asserted below)',
  },
  {
    table: 'facts',
    sql: /INDEXED BY facts_directory_order WHERE status = 'active'/u,
    why: 'the directory walks the partial index of active facts in directory order and stops at its LIMIT',
  },
  {
    table: 'facts',
    sql: /^SELECT f\.entity_id, COUNT\(\*\) AS n FROM facts f INDEXED BY \w+ GROUP BY f\.entity_id/u,
    why:
      'the nebula ranks every subject by its fact count: one covering index scan on its first projection, and again only after ' +
      'a deletion, an edit or many changes (later projections recount the subjects of the rows that changed)',
  },
  {
    table: 'facts',
    sql: /^SELECT id, subject, .* FROM facts NOT INDEXED WHERE status = \? (AND scope = \? )?ORDER BY id DESC LIMIT \?$/u,
    why:
      'the facts page walks the current facts (most of the library, left out of facts_by_status_id) newest first in rowid ' +
      'order and stops at its LIMIT; a project scope reads facts_by_scope instead',
  },
  {
    table: 'facts',
    sql: /^SELECT coalesce\(sum\(CASE WHEN NOT .* FROM facts f LEFT JOIN fact_vectors v .* WHERE f\.status IN \('active', 'scheduled', 'conflict'\)$/u,
    why:
      "the status's vector coverage counts every current fact by design (it walked all of them on facts_by_status_id before " +
      'that index left the current ones out)',
  },
  {
    table: 'facts',
    sql: /^SELECT f\.id, e\.entity_key, .* FROM facts f JOIN entities e ON e\.id = f\.entity_id WHERE f\.status = 'active' AND/u,
    why: 'the review sweep reads every current fact by design, a pass in the background within its budget',
  },
  {
    table: 'entities',
    sql: /^SELECT id, created_at FROM entities ORDER BY id LIMIT 1$/u,
    why: 'the nebula reads the oldest subject (the first row in rowid order, then stops) to tell a cleared library from a grown one',
  },
  {
    table: 'fact_vectors',
    sql: /^SELECT v\.id, v\.space_id FROM fact_vectors v JOIN facts f ON f\.id = v\.fact_id WHERE NOT/u,
    why: 'the timed and the manual vector sweep look at every vector by design; the sweep a write asks for reads through facts_by_updated',
  },
  {
    table: 'proposals',
    sql: /^SELECT id, fingerprint, kind, status, reason, revision, rows, .* FROM proposals WHERE \(\? IS NULL OR status = \?\) .* ORDER BY id DESC LIMIT \?$/u,
    why: 'the review queue walks the cards newest first and stops at its LIMIT; decided cards are pruned to 1,000',
  },
  {
    table: 'proposals',
    sql: /^SELECT count\(\*\) AS n FROM proposals WHERE created_at > \?$/u,
    why: 'the activity panel counts recent cards over a covering index; decided cards are pruned to 1,000',
  },
]

/**
 * A statement's stable text: whitespace collapsed, and every parenthesized list of placeholders (an IN list, a VALUES
 * row) written as `(?…)`, so the same statement over another number of ids is one statement.
 */
function normalizeStatement(sql: string): string {
  return sql
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/\(\?(?:, \?)*\)/gu, '(?…)')
}

/** The plan's detail lines, indented two spaces per level of nesting (ids differ between versions, nesting does not). */
function planOf(db: Database, sql: string, params: readonly SqlValue[]): string[] {
  const rows = db.all(`EXPLAIN QUERY PLAN ${sql}`, ...params)
  const depth = new Map<number, number>([[0, -1]])
  return rows.map((row) => {
    const level = (depth.get(Number(row['parent'])) ?? -1) + 1
    depth.set(Number(row['id']), level)
    return `${'  '.repeat(level)}${String(row['detail'])}`
  })
}

/** The tables a statement names, by the alias (or name) a plan line calls them. */
function aliasesOf(sql: string): Map<string, string> {
  const aliases = new Map<string, string>()
  const KEYWORDS = new Set([
    'WHERE',
    'JOIN',
    'LEFT',
    'INNER',
    'CROSS',
    'ON',
    'INDEXED',
    'NOT',
    'GROUP',
    'ORDER',
    'LIMIT',
    'SET',
    'USING',
    'UNION',
    'AS',
  ])
  for (const match of sql.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+([a-z_]+)(?:\s+(?:AS\s+)?([a-z_]+))?/giu)) {
    const [, table = '', alias] = match
    aliases.set(table, table)
    if (alias !== undefined && !KEYWORDS.has(alias.toUpperCase())) aliases.set(alias, table)
  }
  return aliases
}

/** The watched tables a plan scans (SCAN lines; a virtual table's scan is its own index, never the base table). */
function watchedScans(sql: string, plan: readonly string[]): string[] {
  const aliases = aliasesOf(sql)
  return plan.flatMap((line) => {
    const scanned = /^\s*SCAN (\w+)(?! VIRTUAL TABLE)/u.exec(line)?.[1]
    const table = scanned === undefined ? undefined : (aliases.get(scanned) ?? scanned)
    return table !== undefined && WATCHED.has(table) ? [table] : []
  })
}

/** One recorded statement with its plan. */
interface PlannedStatement {
  readonly sql: string
  readonly params: readonly SqlValue[]
  readonly paths: Set<string>
  readonly plan: string[]
  /** Every recorded variant's plan (IN lists of other lengths), each checked for scans. */
  readonly variants: string[][]
}

/** The expectation file: plans shared by both drivers, and a driver's own where its SQLite plans differently. */
interface PlanFixture {
  readonly note: string
  readonly plans: Record<string, string[]>
  readonly driverPlans: Partial<Record<(typeof DRIVERS)[number], Record<string, string[]>>>
}

const recordedByDriver = new Map<(typeof DRIVERS)[number], Map<string, PlannedStatement>>()

for (const driver of DRIVERS) {
  describe(`query plans of the hot paths (${driver})`, () => {
    const log = new StatementLog()
    let v: VerbHarness
    let statements: Map<string, PlannedStatement>
    const drive = async (kind: string, paths: readonly DrivenPath[]): Promise<void> => {
      for (const path of paths) await log.during(`${kind}: ${path.name}`, () => path.run(v))
    }

    before(async () => {
      v = verbHarness(driver, PLAN_EMBEDDING, { onStatement: log.observe })
      await seedEveryKind(v)
      await drive('hot', HOT_PATHS)
      await drive('page', PAGE_PATHS)
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('the store is not open')
      const db = opened.stores.db
      statements = new Map()
      for (const entry of log.entries) {
        const key = normalizeStatement(entry.sql)
        const plan = planOf(db, entry.sql, entry.params)
        const held = statements.get(key)
        if (held === undefined) {
          statements.set(key, {
            sql: entry.sql,
            params: entry.params,
            paths: new Set([entry.path]),
            plan,
            variants: [plan],
          })
        } else {
          held.paths.add(entry.path)
          if (!held.variants.some((seen) => seen.join('\n') === plan.join('\n'))) held.variants.push(plan)
        }
      }
      recordedByDriver.set(driver, statements)
    })
    after(() => {
      v.dispose()
    })

    it('records statements from every hot path and page view', () => {
      const sent = new Set(log.entries.map((entry) => entry.path))
      for (const path of [
        ...HOT_PATHS.map((one) => `hot: ${one.name}`),
        ...PAGE_PATHS.map((one) => `page: ${one.name}`),
      ]) {
        assert.ok(sent.has(path), `${path} sent no statement through the observer`)
      }
      assert.ok(statements.size > 100, `only ${statements.size} distinct statements were recorded`)
    })

    it('plans each statement as tests/fixtures/query-plans.json expects', {
      skip: UPDATE ? 'regenerating the expectations' : false,
    }, () => {
      const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as PlanFixture
      const expected = { ...fixture.plans, ...fixture.driverPlans[driver] }
      const missing = [...statements.keys()].filter((key) => expected[key] === undefined)
      assert.deepEqual(
        missing,
        [],
        'statements without an expected plan: rerun with UPDATE_QUERY_PLANS=1 and read the diff',
      )
      const gone = Object.keys(expected).filter((key) => !statements.has(key))
      assert.deepEqual(gone, [], 'expected statements no path sent any more: rerun with UPDATE_QUERY_PLANS=1')
      for (const [key, statement] of statements) {
        assert.deepEqual(
          statement.plan,
          expected[key],
          `the plan changed for\n${key}\n(sent by ${[...statement.paths].join(', ')})`,
        )
      }
    })

    it('scans no large table in a hot statement beyond the named inherent scans', () => {
      const offending: string[] = []
      const used = new Set<InherentScan>()
      for (const [key, statement] of statements) {
        for (const plan of statement.variants) {
          for (const table of watchedScans(key, plan)) {
            const allowed = INHERENT_SCANS.find((scan) => scan.table === table && scan.sql.test(key))
            if (allowed === undefined)
              offending.push(
                `${table} in ${key}\n    ${plan.join('\n    ')}\n  (sent by ${[...statement.paths].join(', ')})`,
              )
            else used.add(allowed)
          }
        }
      }
      assert.deepEqual(offending, [], 'hot statements scanning a large table')
      const unused = INHERENT_SCANS.filter((scan) => !used.has(scan)).map(
        (scan) => `${scan.table}: ${String(scan.sql)}`,
      )
      assert.deepEqual(unused, [], 'an allowed scan no statement makes any more: remove it from INHERENT_SCANS')
    })

    it('finds the facts of a state other than current on the state index, not on a range of their instants', () => {
      // The sweep that promotes scheduled values runs on every open: through facts_by_valid_from (valid_from <= now)
      // it would read nearly every fact, at a million facts a tenth of a second per open.
      const scheduled = [...statements.entries()].filter(([key]) =>
        /FROM facts\b.* WHERE status = 'scheduled'/u.test(key),
      )
      assert.ok(scheduled.length > 0, 'no read of the scheduled facts was recorded')
      for (const [key, { plan }] of scheduled) {
        assert.ok(
          plan.some((line) => line.includes('facts_by_status_id (status=?')),
          `${key}\n  plans ${plan.join(' / ')}`,
        )
      }
    })

    it('never runs the foreign-key scans its plan lists for a new fact: each is behind FkIfZero', () => {
      const insert = [...statements.entries()].find(([key]) => key.startsWith('INSERT INTO facts ('))
      assert.ok(insert !== undefined, 'no INSERT INTO facts was recorded')
      const [, { sql, params }] = insert
      const opened = v.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('the store is not open')
      const db = opened.stores.db
      const roots = new Map(
        db
          .all(`SELECT name, rootpage FROM sqlite_master WHERE type = 'table'`)
          .map((row) => [Number(row['rootpage']), String(row['name'])]),
      )
      const program = db
        .all(`EXPLAIN ${sql}`, ...params)
        .map((row) => ({ opcode: String(row['opcode']), p1: Number(row['p1']), p2: Number(row['p2']) }))
      const guarded: string[] = []
      for (const [at, op] of program.entries()) {
        if (op.opcode !== 'OpenRead' || !roots.has(op.p2)) continue
        const rewinds = program.slice(at + 1, at + 4).some((next) => next.opcode === 'Rewind' && next.p1 === op.p1)
        if (!rewinds) continue
        const table = roots.get(op.p2) ?? '?'
        assert.equal(
          program[at - 1]?.opcode,
          'FkIfZero',
          `the full pass over ${table} in the insert is not skipped when no foreign key broke`,
        )
        guarded.push(table)
      }
      assert.ok(
        guarded.includes('facts'),
        `the insert's plan should list the superseded_by check over facts; guarded: ${guarded.join(', ')}`,
      )
    })
  })
}

after(() => {
  if (!UPDATE) return
  const [first, ...others] = DRIVERS.map((driver) => recordedByDriver.get(driver))
  if (first === undefined || others.some((one) => one === undefined))
    throw new Error('a driver recorded nothing; run every driver to regenerate')
  const plans: Record<string, string[]> = {}
  const driverPlans: Partial<Record<(typeof DRIVERS)[number], Record<string, string[]>>> = {}
  const keys = [...new Set(DRIVERS.flatMap((driver) => [...(recordedByDriver.get(driver)?.keys() ?? [])]))].sort()
  for (const key of keys) {
    const byDriver = DRIVERS.map((driver) => [driver, recordedByDriver.get(driver)?.get(key)?.plan] as const)
    const shared = byDriver.every(([, plan]) => plan !== undefined && plan.join('\n') === byDriver[0]?.[1]?.join('\n'))
    if (shared && byDriver[0]?.[1] !== undefined) {
      plans[key] = byDriver[0][1]
      continue
    }
    for (const [driver, plan] of byDriver) {
      if (plan !== undefined) (driverPlans[driver] ??= {})[key] = plan
    }
  }
  const fixture: PlanFixture = {
    note: "GENERATED by tests/query-plans.spec.ts with UPDATE_QUERY_PLANS=1: normalized statement -> EXPLAIN QUERY PLAN detail lines (indented by nesting); driverPlans holds a driver's own plan where its SQLite differs.",
    plans,
    driverPlans,
  }
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 2)}\n`)
})
