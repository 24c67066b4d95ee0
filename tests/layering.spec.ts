/**
 * Proves the dependency direction of the source tree: every relative import in src/ (static, type-only, re-export or
 * dynamic) points to its own folder or to a strictly lower rank of the declared layering, so no two folders import
 * each other; and the page under client/ reaches into src/ only for type-only imports of the shared wire shapes and
 * the verb contract, which reach nothing but zod schema files and leaf type files.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * The layers of src/, lowest first. A unit is a folder (`store/`) or a top-level file (`types.ts`). A unit may import
 * its own folder freely and any unit of a lower rank; units of one rank are peers and import none of each other.
 */
const SRC_RANKS: readonly (readonly string[])[] = [
  // The wire's zod schemas, from which the wire types below are inferred.
  ['wire.schema.ts'],
  // The sync settings join Config: their declaration and the target check they read sit below config.ts, apart from sync's shells.
  ['sync/sync-target.ts'],
  ['sync/sync-settings.ts'],
  ['types.ts', 'errors.ts', 'clock.ts', 'config.ts', 'wire-types.ts', 'graph-types.ts'],
  ['text/'],
  ['project/', 'host/', 'lexicon/'],
  ['rules/', 'fact-input.ts', 'graph-entity-names.ts', 'graph-clusters.ts', 'directory.ts', 'notice.ts'],
  ['privacy-rescan.ts', 'graph.ts', 'exchange/'],
  // Sync's cores and transports read the exchange row format; the store will keep their change log, so sync sits below it.
  ['sync/'],
  ['store/'],
  // Team memory runs sync's rounds on the store's team log; the search names the teammates it reads of.
  ['retrieval/', 'store-copies.ts', 'team/'],
  ['recall/', 'review/', 'project-rekey/'],
  ['semantic/', 'fact-memory.ts'],
  ['pause/'],
  ['extract/', 'runtime.ts'],
  ['management/', 'tools/'],
  ['routes/', 'context-hooks.ts'],
  ['index.ts'],
]

/** In a rank list, one unit made of every top-level file the list does not name itself. */
const TOP_LEVEL = '*.ts'

/** The layers of client/, lowest first, read the same way as SRC_RANKS; its top-level modules form one unit. */
const CLIENT_RANKS: readonly (readonly string[])[] = [
  // The page's words for a fact (format.ts) import nothing, so the nebula's labels follow the same rules.
  ['format.ts'],
  ['nebula/'],
  [TOP_LEVEL],
  ['components/'],
  ['index.ts'],
]

/** The only src/ files the page may import from, and only with `import type`. */
const CLIENT_SHARED = ['src/graph-types.ts', 'src/wire-types.ts', 'src/management/verb-contract.ts']

/** One relative import: the importing file and the imported file, both relative to the repository root. */
interface Edge {
  readonly from: string
  readonly to: string
  readonly typeOnly: boolean
}

/** Every .ts file under a folder, relative to the repository root, with forward slashes. */
function tsFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}

/** The relative imports of one file: import and export declarations (type-only or not) and `import('…')` calls. */
function importsOf(file: string): Edge[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true)
  const edges: Edge[] = []
  const add = (specifier: string, typeOnly: boolean): void => {
    if (!specifier.startsWith('.')) return
    edges.push({
      from: file,
      to: relative(ROOT, resolve(ROOT, dirname(file), specifier))
        .split(sep)
        .join('/'),
      typeOnly,
    })
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      // `import { type A }` still loads the module (verbatimModuleSyntax), so only `import type` counts as type-only.
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly === true)
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly)
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument !== undefined && ts.isStringLiteralLike(argument)) add(argument.text, false)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return edges
}

/**
 * The unit of a file under a base folder: its first folder with a trailing slash, or the file's own name, or
 * TOP_LEVEL for a top-level file the ranks do not name when they declare TOP_LEVEL.
 */
function unitOf(base: string, file: string, ranks: readonly (readonly string[])[]): string {
  const path = file.slice(base.length + 1)
  const [head = '', ...rest] = path.split('/')
  const declared = ranks.flat()
  // A file inside a folder may be a unit of its own when a rank names it.
  if (rest.length > 0) return declared.includes(path) ? path : `${head}/`
  return !declared.includes(head) && declared.includes(TOP_LEVEL) ? TOP_LEVEL : head
}

/** Each unit's rank index. */
function rankIndex(ranks: readonly (readonly string[])[]): Map<string, number> {
  return new Map(ranks.flatMap((units, index) => units.map((unit) => [unit, index] as const)))
}

/** The units present under a base folder. */
function unitsPresent(base: string, ranks: readonly (readonly string[])[]): string[] {
  return [...new Set(tsFiles(base).map((file) => unitOf(base, file, ranks)))].sort()
}

/**
 * Imports between units of one base folder that do not point strictly down.
 * @returns one line per offending import, naming both files and both ranks.
 */
function wrongWayImports(base: string, ranks: readonly (readonly string[])[]): string[] {
  const rank = rankIndex(ranks)
  const problems: string[] = []
  for (const file of tsFiles(base)) {
    for (const edge of importsOf(file)) {
      if (!edge.to.startsWith(`${base}/`)) continue
      const fromUnit = unitOf(base, edge.from, ranks)
      const toUnit = unitOf(base, edge.to, ranks)
      if (fromUnit === toUnit) continue
      const fromRank = rank.get(fromUnit)
      const toRank = rank.get(toUnit)
      if (fromRank === undefined || toRank === undefined) continue
      if (toRank >= fromRank) {
        problems.push(
          `${edge.from} (rank ${fromRank}) imports ${edge.to} (rank ${toRank}): ${toRank === fromRank ? 'a peer' : 'upward'}`,
        )
      }
    }
  }
  return problems
}

/**
 * Cycles between units of one base folder, found on the unit graph whatever the declared ranks say.
 * @returns each cycle as `a → b → a`.
 */
function unitCycles(base: string, ranks: readonly (readonly string[])[]): string[] {
  const graph = new Map<string, Set<string>>()
  for (const file of tsFiles(base)) {
    for (const edge of importsOf(file)) {
      if (!edge.to.startsWith(`${base}/`)) continue
      const fromUnit = unitOf(base, edge.from, ranks)
      const toUnit = unitOf(base, edge.to, ranks)
      if (fromUnit === toUnit) continue
      const targets = graph.get(fromUnit) ?? new Set<string>()
      targets.add(toUnit)
      graph.set(fromUnit, targets)
    }
  }
  const cycles = new Set<string>()
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const walk = (unit: string): void => {
    state.set(unit, 'open')
    path.push(unit)
    for (const next of [...(graph.get(unit) ?? [])].sort()) {
      if (state.get(next) === 'open') cycles.add([...path.slice(path.indexOf(next)), next].join(' → '))
      else if (state.get(next) === undefined) walk(next)
    }
    path.pop()
    state.set(unit, 'done')
  }
  for (const unit of [...graph.keys()].sort()) if (state.get(unit) === undefined) walk(unit)
  return [...cycles]
}

describe('src/ layering', () => {
  it('declares every folder and top-level file of src/ in exactly one rank, and nothing that is not there', () => {
    const declared = SRC_RANKS.flat()
    assert.deepEqual(
      declared.filter((unit, index) => declared.indexOf(unit) !== index),
      [],
      'a unit declared twice',
    )
    assert.deepEqual(unitsPresent('src', SRC_RANKS), [...declared].sort())
  })

  it('has every relative import of src/ point to its own folder or a lower rank', () => {
    assert.deepEqual(wrongWayImports('src', SRC_RANKS), [])
  })

  it('has no cycle between the folders and top-level files of src/', () => {
    assert.deepEqual(unitCycles('src', SRC_RANKS), [])
  })

  it('reads re-exports, type-only and dynamic imports as imports', () => {
    const probe = join('tests', 'fixtures', 'layering-probe.ts')
    const edges = importsOf(probe).map((edge) => [edge.to, edge.typeOnly])
    assert.deepEqual(edges, [
      ['src/types.ts', true],
      ['src/errors.ts', false],
      ['src/clock.ts', true],
      ['src/text/clip.ts', false],
      ['src/config.ts', true],
      ['src/text/dates.ts', true],
      ['src/text/dates.ts', false],
    ])
  })
})

describe('client/ layering', () => {
  it('declares every folder and top-level file of client/ in exactly one rank, and nothing that is not there', () => {
    assert.deepEqual(unitsPresent('client', CLIENT_RANKS), [...CLIENT_RANKS.flat()].sort())
  })

  it('has every relative import inside client/ point to its own folder or a lower rank', () => {
    assert.deepEqual(wrongWayImports('client', CLIENT_RANKS), [])
  })

  it('has no cycle between the folders and top-level files of client/', () => {
    assert.deepEqual(unitCycles('client', CLIENT_RANKS), [])
  })

  it('reaches into src/ only with type-only imports of the shared wire shapes, which reach only schemas and leaf types', () => {
    const outside = tsFiles('client')
      .flatMap(importsOf)
      .filter((edge) => !edge.to.startsWith('client/'))
    assert.ok(outside.length > 0, 'the page imports the shared shapes somewhere')
    assert.deepEqual(
      outside
        .filter((edge) => !CLIENT_SHARED.includes(edge.to) || !edge.typeOnly)
        .map((edge) => `${edge.from} imports ${edge.to}`),
      [],
    )
    // What the shared files reach, transitively: the page type-checks all of it, so none of it may be server code.
    const reached = new Set<string>()
    const visit = (file: string): void => {
      for (const edge of importsOf(file)) {
        if (reached.has(edge.to)) continue
        reached.add(edge.to)
        visit(edge.to)
      }
    }
    CLIENT_SHARED.forEach(visit)
    const pure = (file: string): boolean =>
      CLIENT_SHARED.includes(file) || file.endsWith('.schema.ts') || importsOf(file).length === 0
    assert.deepEqual(
      [...reached].filter((file) => !pure(file)),
      [],
    )
  })
})
