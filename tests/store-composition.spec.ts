/**
 * Proves the fact store's composition: its parts (reading, slot rules, writing, forgetting, corrections, curation,
 * renames, scopes) are built once each behind the FactStore front door, none extends another, and on a real file
 * with both SQLite bindings every part sends its statements through one connection, each statement text prepared
 * once for all of them. And that nothing above the store reaches around the front door: no file outside src/store
 * imports a part's own module, none but fact-memory.ts (which opens it) imports the database itself, and none in src/
 * or scripts/ but that service names or asks for the full StoreSet (routes, verbs and benches take OpenStores from
 * FactMemory.stores(), whose database handle sends no SQL).
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { CurationStore } from '../src/store/curation-store.ts'
import { FactCorrections } from '../src/store/fact-corrections.ts'
import { FactForgetting } from '../src/store/fact-forgetting.ts'
import { FactReader } from '../src/store/fact-reader.ts'
import { FactSlots } from '../src/store/fact-slots.ts'
import { FactStore } from '../src/store/fact-store.ts'
import { FactWriter } from '../src/store/fact-writer.ts'
import { RenameStore } from '../src/store/rename-store.ts'
import { ScopeStore } from '../src/store/scope-store.ts'
import type { DriverName } from '../src/store/connection.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { DRIVERS, openMemory, writeFact, type MemoryHandle } from './helpers/store.ts'
import { storesOf } from './helpers/vectors.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The parts' modules: only src/store itself reaches them; everyone else goes through fact-store.ts. */
const PART_MODULES = [
  'fact-reader',
  'fact-slots',
  'fact-writer',
  'fact-forgetting',
  'fact-corrections',
  'curation-store',
  'rename-store',
  'scope-store',
].map((name) => `src/store/${name}.ts`)

/** The only file above the store that opens the database (and so imports it). */
const OPENS_THE_DATABASE = ['src/fact-memory.ts']

/**
 * Above the store, the stores are taken as OpenStores (the database only as a handle that sends no SQL); only the
 * service that opens them names the full StoreSet.
 */
const NAMES_THE_FULL_SET = ['src/fact-memory.ts']

const PART_CLASSES = [
  FactReader,
  FactSlots,
  FactWriter,
  FactForgetting,
  FactCorrections,
  CurationStore,
  RenameStore,
  ScopeStore,
] as const

/** Every .ts file under a folder, relative to the repository root, with forward slashes. */
function tsFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}

function sourceOf(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true)
}

/** The files a file imports or re-exports (type-only or not, static or dynamic), relative to the repository root. */
function importsOf(file: string): string[] {
  const found: string[] = []
  const add = (specifier: string): void => {
    if (specifier.startsWith('.'))
      found.push(
        relative(ROOT, resolve(ROOT, dirname(file), specifier))
          .split(sep)
          .join('/'),
      )
  }
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text)
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument !== undefined && ts.isStringLiteralLike(argument)) add(argument.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(sourceOf(file))
  return found
}

/** The files among these, outside src/store, that name the full StoreSet type or ask for it with storeSet(). */
function namingTheFullSet(sources: readonly ts.SourceFile[]): string[] {
  return sources
    .filter((source) => !source.fileName.startsWith('src/store/') && !NAMES_THE_FULL_SET.includes(source.fileName))
    .filter((source) => ['StoreSet', 'storeSet'].some((name) => identifiersOf(source).has(name)))
    .map((source) => source.fileName)
}

/** The identifiers a source file names. */
function identifiersOf(source: ts.SourceFile): Set<string> {
  const names = new Set<string>()
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) names.add(node.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return names
}

/** Each class among the sources that extends another class declared among them: `file: Child extends Parent`. */
function inheritanceAmong(sources: readonly ts.SourceFile[]): string[] {
  const declared = new Set<string>()
  const heritage: { file: string; name: string; parent: string }[] = []
  for (const source of sources) {
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
        const name = node.name?.text ?? '(anonymous)'
        declared.add(name)
        for (const clause of node.heritageClauses ?? []) {
          if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue
          for (const type of clause.types)
            heritage.push({ file: source.fileName, name, parent: type.expression.getText(source) })
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return heritage
    .filter((entry) => declared.has(entry.parent))
    .map((entry) => `${entry.file}: ${entry.name} extends ${entry.parent}`)
}

describe('the fact store by composition: the source', () => {
  it('no class in src/store extends another class of src/store', () => {
    assert.deepEqual(inheritanceAmong(tsFiles('src/store').map(sourceOf)), [])
  })

  it('outside src/store only the front door is imported: no part module, and the database only where it is opened', () => {
    const reaching: string[] = []
    for (const file of tsFiles('src').filter((name) => !name.startsWith('src/store/'))) {
      for (const target of importsOf(file)) {
        if (PART_MODULES.includes(target)) reaching.push(`${file} imports ${target}`)
        if (target === 'src/store/database.ts' && !OPENS_THE_DATABASE.includes(file))
          reaching.push(`${file} imports ${target}`)
      }
    }
    assert.deepEqual(reaching, [])
  })

  it('above the store, in src/ and scripts/, only the service that opens the stores names or asks for the full StoreSet', () => {
    // FactMemory.stores() hands out OpenStores to routes, verbs and benches; storeSet(), the full set, is the specs'.
    assert.deepEqual(namingTheFullSet([...tsFiles('src'), ...tsFiles('scripts')].map(sourceOf)), [])
  })

  it('the checks see a part import and an inheritance where there is one', () => {
    // The front door imports every part; a chain like the one the parts replaced is named link by link.
    assert.deepEqual(
      [...new Set(importsOf('src/store/fact-store.ts'))].filter((target) => PART_MODULES.includes(target)).sort(),
      [...PART_MODULES].sort(),
    )
    const chain = ts.createSourceFile(
      'src/store/chain.ts',
      'export class FactReader {}\nexport class FactSlots extends FactReader {}\nclass Failure extends Error {}',
      ts.ScriptTarget.Latest,
      true,
    )
    assert.deepEqual(inheritanceAmong([chain]), ['src/store/chain.ts: FactSlots extends FactReader'])
    // A route naming the full set, as the routes did before they took OpenStores, is named; the store itself is not.
    const route = ts.createSourceFile(
      'src/routes/route.ts',
      "import type { StoreSet } from '../store/store-set.ts'\nexport let stores: StoreSet | undefined",
      ts.ScriptTarget.Latest,
      true,
    )
    const asking = ts.createSourceFile('scripts/bench.ts', 'memory.storeSet()', ts.ScriptTarget.Latest, true)
    const store = ts.createSourceFile('src/store/x.ts', 'export let s: StoreSet', ts.ScriptTarget.Latest, true)
    assert.deepEqual(namingTheFullSet([route, asking, store]), ['src/routes/route.ts', 'scripts/bench.ts'])
  })
})

/** Counts, per native connection, how many times each statement text was prepared, while installed. */
function countPrepares(driver: DriverName): {
  readonly byConnection: Map<object, Map<string, number>>
  restore(): void
} {
  const proto =
    driver === 'node:sqlite'
      ? (process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite')).DatabaseSync.prototype
      : (createRequire(join(ROOT, 'src/store/connection.ts'))('better-sqlite3') as { prototype: object }).prototype
  const target = proto as { prepare: (this: object, sql: string) => unknown }
  const original = target.prepare
  const byConnection = new Map<object, Map<string, number>>()
  target.prepare = function prepare(this: object, sql: string) {
    const counts = byConnection.get(this) ?? new Map<string, number>()
    byConnection.set(this, counts)
    counts.set(sql, (counts.get(sql) ?? 0) + 1)
    return original.call(this, sql)
  }
  return {
    byConnection,
    restore: () => {
      target.prepare = original
    },
  }
}

for (const driver of DRIVERS) {
  describe(`the fact store by composition: one connection (${driver})`, () => {
    let h: MemoryHandle
    let prepares: ReturnType<typeof countPrepares>
    const sent = new Set<string>()
    beforeEach(() => {
      sent.clear()
      prepares = countPrepares(driver)
      h = openMemory(driver, new FakeClock('2026-03-01T09:00:00.000Z'), {}, (sql) => {
        sent.add(sql)
      })
    })
    afterEach(() => {
      prepares.restore()
      h.dispose()
    })

    it('builds each part once, behind the front door; no part is also another part', () => {
      const stores = storesOf(h.memory)
      const facts = stores.facts
      assert.ok(facts instanceof FactStore)
      for (const key of ['curation', 'renames', 'scopes'] as const)
        assert.equal(key in stores, false, `the store set has no second ${key}`)
      const parts = [
        facts.reader,
        facts.slots,
        facts.writer,
        facts.forgetting,
        facts.corrections,
        facts.curation,
        facts.renames,
        facts.scopes,
      ]
      parts.forEach((part, at) => {
        PART_CLASSES.forEach((Part, other) => {
          assert.equal(part instanceof Part, at === other, `part ${at} is ${at === other ? '' : 'not '}a ${Part.name}`)
        })
      })
      assert.ok(!(facts instanceof FactReader), 'the front door composes the reader rather than being one')
      assert.equal(storesOf(h.memory).facts, facts, 'the open store hands out the same front door each time')
    })

    it('every part sends its statements through the one connection, each text prepared once for all parts', () => {
      const stores = storesOf(h.memory)
      const facts = stores.facts
      const first = writeFact(h.memory, h.config, { subject: 'billing-api', property: 'port', value: '7801' })
      const second = writeFact(h.memory, h.config, {
        subject: 'billing-api',
        property: 'owner',
        value: 'payments team',
      })
      // The same read through the front door, the reader and the parts that read through it.
      assert.equal(facts.getFacts([first.id])[0]?.value, '7801')
      assert.equal(facts.reader.getFacts([first.id])[0]?.value, '7801')
      assert.equal(facts.curation.stands('retire', { fact: { factId: first.id, revision: first.revision } }), true)
      assert.deepEqual(
        facts.scopes.moveToScope(
          first.id,
          { scope: first.scope, project: null },
          () => {
            throw new Error('a refused move computes no keys')
          },
          h.clock.iso(),
        ),
        { ok: false, reason: 'same_scope' },
      )
      assert.equal(facts.renames.previewSubjectRename(first.entityKey, 'billing service').ok, true)
      assert.ok(h.memory.advance() !== undefined)
      assert.equal(facts.forgetById(second.id, h.clock.iso()).length, 1)

      assert.ok(sent.size > 0)
      const preparedBy = [...prepares.byConnection].filter(([, counts]) => [...sent].some((sql) => counts.has(sql)))
      assert.equal(preparedBy.length, 1, 'one native connection prepared the statements every part sent')
      const [, counts] = preparedBy[0] ?? [undefined, new Map<string, number>()]
      const missing = [...sent].filter((sql) => !counts.has(sql))
      assert.deepEqual(missing, [], 'every statement sent went through that connection')
      const twice = [...counts].filter(([, n]) => n > 1).map(([sql]) => sql)
      assert.deepEqual(twice, [], 'no statement text was prepared twice: the parts share one statement cache')
    })
  })
}
