/**
 * How npm test shares Node processes between spec files (scripts/test-bundles.mjs, tests/helpers/bundle.ts): which
 * files run together, and that a file keeps its own hooks in a shared process.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { BUNDLING, bundleJobs } from '../scripts/test-bundles.mjs'
import { knownTimings, RECORDED_TIMES, recordedAfter, timingsFile, writeTimings } from '../scripts/test-pool.mjs'
import { removeDir, tempDir } from './helpers/store.ts'

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))
const job = (file: string, tier: string, seconds: number) => ({ file, path: file, tier, seconds })
/** Sources by path: none marked for a process of its own, unless named here. */
const sources =
  (marked: readonly string[] = []) =>
  (path: string) =>
    marked.includes(path) ? '// npm test: a process of its own: it counts the live timers\n' : '// a spec\n'

describe('npm test bundles', () => {
  it('keeps a long file in a process of its own and bundles the short ones of its tier, each file once', () => {
    // Twelve short unit files filling three bundles' worth, evenly.
    const short = BUNDLING.unit.bundleSeconds / 4
    const jobs = [
      job('tests/long.spec.ts', 'unit', BUNDLING.unit.aloneSeconds + 1),
      ...Array.from({ length: 12 }, (_, index) => job(`tests/u${index}.spec.ts`, 'unit', short)),
      job('tests/page.spec.ts', 'browser', 30),
      job('tests/other-page.spec.ts', 'browser', 20),
    ]
    const runs = bundleJobs(jobs, sources())
    assert.deepEqual(
      runs.filter((run) => run.files.length === 1).map((run) => run.files[0]?.file),
      ['tests/long.spec.ts'],
    )
    const files = runs.flatMap((run) => run.files.map((one) => one.file)).sort()
    assert.deepEqual(files, jobs.map((one) => one.file).sort())
    const unitBundles = runs.filter((run) => run.tier === 'unit' && run.files.length > 1)
    assert.deepEqual(
      unitBundles.map((run) => run.files.length),
      [4, 4, 4],
    )
    const pages = runs.filter((run) => run.tier === 'browser')
    assert.deepEqual(
      pages.map((run) => run.files.map((one) => one.file)),
      [['tests/page.spec.ts', 'tests/other-page.spec.ts']],
      'browser files bundle with browser files only',
    )
  })

  it('makes one bundle of files with no time yet', () => {
    const runs = bundleJobs([job('tests/a.spec.ts', 'host', 0), job('tests/b.spec.ts', 'host', 0)], sources())
    assert.equal(runs.length, 1)
    assert.equal(runs[0]?.files.length, 2)
  })

  it('keeps a file that reads its whole process out of bundles', () => {
    const jobs = ['a', 'b', 'c'].map((name) => job(`tests/${name}.spec.ts`, 'unit', 1))
    const runs = bundleJobs(jobs, sources(['tests/b.spec.ts']))
    assert.deepEqual(runs.map((run) => run.files.map((one) => one.file)).sort(), [
      ['tests/a.spec.ts', 'tests/c.spec.ts'],
      ['tests/b.spec.ts'],
    ])
  })

  it("runs each bundled file's top-level hooks around its own tests alone", () => {
    const dir = tempDir('fact-memory-bundle-')
    try {
      const log = join(dir, 'order.log')
      for (const name of ['first', 'second']) {
        writeFileSync(
          join(dir, `${name}.spec.ts`),
          [
            "import { appendFileSync } from 'node:fs'",
            "import { after, before, beforeEach, it } from 'node:test'",
            `const note = (line: string) => appendFileSync(${JSON.stringify(log)}, line + '\\n')`,
            `before(() => note('${name}: before'))`,
            `beforeEach(() => note('${name}: beforeEach'))`,
            `after(() => note('${name}: after'))`,
            `it('${name} test', () => note('${name}: test'))`,
          ].join('\n'),
        )
      }
      const ran = spawnSync(
        process.execPath,
        [
          '--disable-warning=ExperimentalWarning',
          'tests/helpers/bundle.ts',
          join(dir, 'first.spec.ts'),
          join(dir, 'second.spec.ts'),
        ],
        { cwd: REPO_ROOT, encoding: 'utf8' },
      )
      assert.equal(ran.status, 0, ran.stdout + ran.stderr)
      assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), [
        'first: before',
        'first: beforeEach',
        'first: test',
        'first: after',
        'second: before',
        'second: beforeEach',
        'second: test',
        'second: after',
      ])
    } finally {
      removeDir(dir)
    }
  })

  it("lays a fresh clone's run out by the committed record, and a checkout's own last run over it", () => {
    const root = tempDir()
    const ownTimes = timingsFile(root)
    try {
      mkdirSync(join(root, 'scripts'))
      writeFileSync(join(root, RECORDED_TIMES), JSON.stringify({ 'tests/a.spec.ts': 40, 'tests/b.spec.ts': 12.5 }))
      assert.deepEqual(knownTimings(root), { 'tests/a.spec.ts': 40, 'tests/b.spec.ts': 12.5 })
      writeTimings(ownTimes, { 'tests/b.spec.ts': 3 })
      assert.deepEqual(knownTimings(root), { 'tests/a.spec.ts': 40, 'tests/b.spec.ts': 3 })
    } finally {
      rmSync(ownTimes, { force: true })
      removeDir(root)
    }
  })

  it("records a run's seconds to a tenth over the record's, for the spec files that still exist, by name", () => {
    const record = recordedAfter(
      { 'tests/gone.spec.ts': 9, 'tests/kept.spec.ts': 7, 'tests/b.spec.ts': 1 },
      { 'tests/b.spec.ts': 2.04, 'tests/a.spec.ts': 31.96 },
      ['tests/kept.spec.ts', 'tests/b.spec.ts', 'tests/a.spec.ts'],
    )
    assert.deepEqual(Object.entries(record), [
      ['tests/a.spec.ts', 32],
      ['tests/b.spec.ts', 2],
      ['tests/kept.spec.ts', 7],
    ])
  })

  it('has a committed time for every spec file, and for no file that is gone', () => {
    const recorded = Object.keys(JSON.parse(readFileSync(join(REPO_ROOT, RECORDED_TIMES), 'utf8')))
    const specs = readdirSync(join(REPO_ROOT, 'tests'))
      .filter((file) => file.endsWith('.spec.ts'))
      .map((file) => `tests/${file}`)
    const hint = 'run `npm test -- --record-times` on the two-core reference machine and commit scripts/test-times.json'
    assert.deepEqual(
      specs.filter((file) => !recorded.includes(file)),
      [],
      `spec files with no recorded time: ${hint}`,
    )
    assert.deepEqual(
      recorded.filter((file) => !specs.includes(file)),
      [],
      `recorded times for files that are gone: ${hint}`,
    )
  })
})
