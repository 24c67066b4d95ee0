/**
 * A store an older version wrote, its project facts under the folder the repository was checked out in, moves onto
 * repository keys when it opens (both SQLite bindings, real git repositories): the facts, their history and their
 * tombstones take the new key, the project keeps its name, pending proposals follow, a copy is taken first, nothing
 * happens on the next open, and two checkouts of one repository that both held facts become one project with their
 * shared claim joined and their disagreement shown as a conflict.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { systemClock } from '../src/clock.ts'
import { FactMemory } from '../src/fact-memory.ts'
import { ProjectLocator } from '../src/project/project-locator.ts'
import type { ProjectRef } from '../src/types.ts'
import { DRIVERS, expectKind, makeConfig, removeDir, tempDir, write, writeFact } from './helpers/store.ts'

const REPOSITORY_KEY = 'git:github.com/acme/billing-service'

describe('project keys moved to repository keys', () => {
  let root: string
  let checkout: string
  let worktree: string
  const git = (cwd: string, ...args: string[]): void => {
    const result = spawnSync(
      'git',
      ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args],
      { cwd, encoding: 'utf8' },
    )
    assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`)
  }
  before(() => {
    root = realpathSync(tempDir('fact-memory-rekey-'))
    checkout = join(root, 'billing-service')
    mkdirSync(checkout)
    git(checkout, 'init', '-q')
    git(checkout, 'remote', 'add', 'origin', 'git@github.com:acme/billing-service.git')
    writeFileSync(join(checkout, 'README.md'), '# billing\n')
    git(checkout, 'add', '.')
    git(checkout, 'commit', '-q', '-m', 'first')
    worktree = join(root, 'billing-hotfix')
    git(checkout, 'worktree', 'add', '-q', '-b', 'hotfix', worktree)
  })
  after(() => {
    removeDir(root)
  })

  /** The project as a version before repository keys named it: the folder. */
  const folderProject = (folder: string, name: string): ProjectRef => ({ key: folder, name, repository: true })

  for (const driver of DRIVERS) {
    describe(`on ${driver}`, () => {
      let dataRoot: string
      afterEach(() => {
        removeDir(dataRoot)
      })

      it("moves a project's facts, history and tombstones to the repository key, keeps its name, copies the store first, and does it once", () => {
        dataRoot = tempDir()
        const config = makeConfig(dataRoot)
        const old = new FactMemory({ clock: systemClock, driver, locator: { repositoryOfFolder: () => undefined } })
        old.open(config.resolvedDataDir)
        const project = folderProject(checkout, 'billing-service')
        writeFact(old, config, {
          subject: 'billing-service',
          property: 'port',
          value: '4000',
          evidence: 'explicit_user',
          project,
        })
        writeFact(old, config, {
          subject: 'billing-service',
          property: 'port',
          value: '4100',
          evidence: 'explicit_user',
          project,
        })
        const forgotten = writeFact(old, config, {
          subject: 'billing-service',
          property: 'secret sauce',
          value: 'ketchup',
          project,
        })
        assert.equal(old.forgetById(forgotten.id).kind, 'forgotten')
        expectKind(
          write(old, config, {
            subject: 'billing-service',
            property: 'queue',
            value: 'BullMQ',
            confidence: 0.3,
            project,
          }),
          'proposed',
        )
        writeFact(old, config, { subject: 'user', property: 'editor', value: 'Neovim', evidence: 'explicit_user' })
        writeFact(
          old,
          { ...config, refuseCredentials: false },
          { subject: 'staging db', property: 'password', value: 'Tr0ub4dor93xQ', evidence: 'explicit_user' },
        )
        old.close()

        const memory = new FactMemory({ clock: systemClock, driver })
        memory.open(config.resolvedDataDir)
        try {
          assert.equal(memory.status().available, true)
          const report = memory.lastRekey
          assert.deepEqual(
            report?.projects.map((entry) => [entry.from, entry.to, entry.name, entry.moved]),
            [[checkout, REPOSITORY_KEY, 'billing-service', 3]],
          )
          assert.match(report?.backup ?? '', /^backups\/memory-project-keys-.+\.db$/u)
          assert.equal(report?.error, null)
          assert.equal(
            readFileSync(join(config.resolvedDataDir, report?.backup ?? '')).includes('Tr0ub4dor93xQ'),
            false,
            'the copy masks a kept credential',
          )
          const here = new ProjectLocator().locate(worktree)
          assert.equal(here.key, REPOSITORY_KEY)
          assert.match(
            memory.directory(config, here),
            /- billing-service · port: 4100 \(\d{4}-\d{2}-\d{2}, project billing-service\)/u,
          )
          const stores = memory.storeSet()
          assert.ok('stores' in stores)
          const scopes = stores.stores.db
            .all(`SELECT DISTINCT scope FROM facts WHERE subject = 'billing-service'`)
            .map((row) => String(row['scope']))
          assert.deepEqual(scopes, [`project:${REPOSITORY_KEY}`])
          assert.deepEqual(
            stores.stores.db
              .all('SELECT project_key, name FROM projects')
              .map((row) => [row['project_key'], row['name']]),
            [[REPOSITORY_KEY, 'billing-service']],
          )
          const pending = stores.stores.db
            .all(`SELECT rows FROM proposals WHERE status = 'pending'`)
            .map((row) => String(row['rows']))
          assert.equal(pending.length, 1)
          assert.ok(pending[0]?.includes(`"scope":"project:${REPOSITORY_KEY}"`), pending[0])
          // The forgotten claim stays forgotten under the new key, whichever checkout writes it back.
          const again = write(memory, config, {
            subject: 'billing-service',
            property: 'secret sauce',
            value: 'ketchup',
            project: here,
          })
          assert.equal(again.kind, 'refused')
          assert.match(again.kind === 'refused' ? again.message : '', /forgotten at the user's request/u)
          // History moved with the value: the old port is the new port's past.
          const history = stores.stores.db
            .all(`SELECT value, status FROM facts WHERE property = 'port' ORDER BY id`)
            .map((row) => [row['value'], row['status']])
          assert.deepEqual(history, [
            ['4000', 'superseded'],
            ['4100', 'active'],
          ])
          memory.close()

          memory.open(config.resolvedDataDir)
          assert.deepEqual(memory.lastRekey?.projects, [])
          const copies = readdirSync(join(config.resolvedDataDir, 'backups')).filter((name) =>
            name.startsWith('memory-project-keys-'),
          )
          assert.equal(copies.length, 1, 'one copy, taken before the one move')
        } finally {
          memory.close()
        }
      })

      it("joins two checkouts' facts into one project: a shared claim is one fact, a disagreement is a visible conflict", async () => {
        dataRoot = tempDir()
        const config = makeConfig(dataRoot)
        const old = new FactMemory({ clock: systemClock, driver, locator: { repositoryOfFolder: () => undefined } })
        old.open(config.resolvedDataDir)
        const main = folderProject(checkout, 'billing-service')
        const hotfix = folderProject(worktree, 'billing-hotfix')
        writeFact(old, config, {
          subject: 'billing-service',
          property: 'test command',
          value: 'npm test',
          evidence: 'explicit_user',
          project: main,
        })
        writeFact(old, config, {
          subject: 'billing-service',
          property: 'test command',
          value: 'npm test',
          evidence: 'explicit_user',
          project: hotfix,
        })
        writeFact(old, config, {
          subject: 'billing-service',
          property: 'port',
          value: '4100',
          evidence: 'explicit_user',
          project: main,
        })
        writeFact(old, config, {
          subject: 'billing-service',
          property: 'port',
          value: '4200',
          evidence: 'explicit_user',
          project: hotfix,
        })
        old.close()

        const memory = new FactMemory({ clock: systemClock, driver })
        memory.open(config.resolvedDataDir)
        try {
          const report = memory.lastRekey
          assert.equal(report?.projects.length, 2)
          assert.deepEqual(
            report?.projects.map((entry) => entry.to),
            [REPOSITORY_KEY, REPOSITORY_KEY],
          )
          assert.equal(
            report?.projects.reduce((sum, entry) => sum + entry.joined, 0),
            1,
          )
          assert.equal(
            report?.projects.reduce((sum, entry) => sum + entry.contested, 0),
            1,
          )
          const here = new ProjectLocator().locate(checkout)
          const answer = await memory.search(
            { query: 'billing-service port', limit: 5, asOf: undefined, project: here },
            config,
          )
          assert.equal(answer.outcome, 'needs_selection', "the two checkouts' ports disagree, and say so")
          const stores = memory.storeSet()
          assert.ok('stores' in stores)
          const tests = stores.stores.db
            .all(`SELECT status FROM facts WHERE property = 'test command' ORDER BY id`)
            .map((row) => row['status'])
          assert.deepEqual(tests.sort(), ['active', 'retired'])
          const sources = stores.stores.db.get(
            `SELECT count(*) AS n FROM fact_sources s JOIN facts f ON f.id = s.fact_id WHERE f.property = 'test command' AND f.status = 'active'`,
          )
          assert.equal(Number(sources?.['n']), 2, "the joined fact keeps both checkouts' sources")
          assert.deepEqual(
            stores.stores.db.all('SELECT name FROM projects').map((row) => row['name']),
            ['billing-service'],
          )
        } finally {
          memory.close()
        }
      })
    })
  }
})
