/**
 * The session's project: the pure core (canonical key, name, scope text, the walk up to the repository root, whether
 * a statement names the project) and the locator over a real file system (a repository's subfolder, a folder in no
 * repository, a worktree's `.git` file, a symlinked path, the per-directory cache, a session without a cwd).
 */
import assert from 'node:assert/strict'
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { NODE_FILE_SYSTEM, ProjectLocator, projectOfSession } from '../src/project/project-locator.ts'
import {
  canonicalProjectKey,
  isProjectScope,
  projectKeyOfScope,
  projectNameOf,
  projectOfRoot,
  projectScope,
  repositoryRootOf,
  statementNamesProject,
} from '../src/project/project-ref.ts'
import { removeDir, tempDir } from './helpers/store.ts'

describe('the project core', () => {
  it('canonicalizes a root path: forward slashes, no doubled or trailing separator, a root keeps its own', () => {
    assert.equal(canonicalProjectKey('/home/ada/src/billing-api/'), '/home/ada/src/billing-api')
    assert.equal(canonicalProjectKey('/home//ada///src'), '/home/ada/src')
    assert.equal(canonicalProjectKey('C:\\Users\\ada\\billing-api\\'), 'C:/Users/ada/billing-api')
    assert.equal(canonicalProjectKey('/'), '/')
    assert.equal(canonicalProjectKey('C:\\'), 'C:/')
  })

  it('names a project by its folder', () => {
    assert.deepEqual(projectOfRoot('/home/ada/src/billing-api'), {
      key: '/home/ada/src/billing-api',
      name: 'billing-api',
    })
    assert.equal(projectNameOf('C:/Users/ada/shop web'), 'shop web')
    assert.equal(projectNameOf('/'), '/')
  })

  it('stores a project as project:<key> and recognizes only that as a project scope', () => {
    const project = projectOfRoot('/srv/billing-api')
    assert.equal(projectScope(project), 'project:/srv/billing-api')
    assert.equal(projectKeyOfScope('project:/srv/billing-api'), '/srv/billing-api')
    for (const scope of ['global', 'billing', 'project', 'project:', 'Project:/x']) {
      assert.equal(isProjectScope(scope), false, scope)
      assert.equal(projectKeyOfScope(scope), null, scope)
    }
  })

  it('walks up to the nearest folder holding .git, and stays where it started when none does', () => {
    const parent = (folder: string): string => dirname(folder)
    const repos = new Set(['/work/a', '/work/a/vendor/b'])
    assert.equal(
      repositoryRootOf('/work/a/src/deep', (folder) => repos.has(folder), parent),
      '/work/a',
    )
    assert.equal(
      repositoryRootOf('/work/a/vendor/b/lib', (folder) => repos.has(folder), parent),
      '/work/a/vendor/b',
    )
    assert.equal(
      repositoryRootOf('/tmp/scratch', (folder) => repos.has(folder), parent),
      '/tmp/scratch',
    )
  })

  it('finds the project named in a statement whatever its case and separators, as whole words only', () => {
    const project = projectOfRoot('/srv/billing-api')
    assert.equal(statementNamesProject('billing-api runs on port 8123', project), true)
    assert.equal(statementNamesProject('In Billing API we use pnpm', project), true)
    assert.equal(statementNamesProject('the billing_api tests need docker', project), true)
    assert.equal(statementNamesProject('I prefer tabs', project), false)
    assert.equal(statementNamesProject('billing-apis are hard', project), false)
  })
})

describe('the project locator on a real file system', () => {
  let root: string
  before(() => {
    root = realpathSync(tempDir('fact-memory-project-'))
    mkdirSync(join(root, 'billing-api', '.git'), { recursive: true })
    mkdirSync(join(root, 'billing-api', 'src', 'handlers'), { recursive: true })
    mkdirSync(join(root, 'scratch', 'notes'), { recursive: true })
    mkdirSync(join(root, 'worktree', 'lib'), { recursive: true })
    writeFileSync(join(root, 'worktree', '.git'), 'gitdir: /elsewhere/.git/worktrees/worktree\n')
    symlinkSync(join(root, 'billing-api', 'src'), join(root, 'link-to-src'))
  })
  after(() => {
    removeDir(root)
  })

  it('takes a session in a subfolder of a repository to the repository root', () => {
    const locator = new ProjectLocator()
    assert.deepEqual(locator.locate(join(root, 'billing-api', 'src', 'handlers')), {
      key: join(root, 'billing-api'),
      name: 'billing-api',
      repository: true,
      folderKey: join(root, 'billing-api'),
    })
    assert.deepEqual(locator.locate(join(root, 'billing-api')), {
      key: join(root, 'billing-api'),
      name: 'billing-api',
      repository: true,
      folderKey: join(root, 'billing-api'),
    })
  })

  it('takes a folder outside any repository as its own project', () => {
    assert.deepEqual(new ProjectLocator().locate(join(root, 'scratch', 'notes')), {
      key: join(root, 'scratch', 'notes'),
      name: 'notes',
      repository: false,
    })
  })

  it('counts a .git file (a worktree or submodule) as a repository root', () => {
    assert.equal(new ProjectLocator().locate(join(root, 'worktree', 'lib')).key, join(root, 'worktree'))
  })

  it('resolves a symlinked working directory to the real repository', () => {
    assert.deepEqual(new ProjectLocator().locate(join(root, 'link-to-src')), {
      key: join(root, 'billing-api'),
      name: 'billing-api',
      repository: true,
      folderKey: join(root, 'billing-api'),
    })
  })

  it('takes a working directory that no longer exists as written', () => {
    const gone = join(root, 'gone', 'away')
    assert.deepEqual(new ProjectLocator().locate(`${gone}/`), { key: gone, name: 'away', repository: false })
  })

  it('reads the disk once per working directory', () => {
    let reads = 0
    const locator = new ProjectLocator({
      realpath: (path) => {
        reads += 1
        return NODE_FILE_SYSTEM.realpath(path)
      },
      exists: (path) => {
        reads += 1
        return NODE_FILE_SYSTEM.exists(path)
      },
    })
    const cwd = join(root, 'billing-api', 'src', 'handlers')
    const first = locator.locate(cwd)
    const afterFirst = reads
    assert.ok(afterFirst > 0)
    assert.deepEqual(locator.locate(cwd), first)
    assert.equal(reads, afterFirst)
  })

  it('gives no project to a session without a working directory, or to no session', () => {
    assert.equal(projectOfSession(undefined), null)
    assert.equal(projectOfSession({ header: {} }), null)
    assert.equal(projectOfSession({ header: { cwd: '' } }), null)
    assert.deepEqual(projectOfSession({ header: { cwd: join(root, 'billing-api', 'src') } }), {
      key: join(root, 'billing-api'),
      name: 'billing-api',
      repository: true,
      folderKey: join(root, 'billing-api'),
    })
  })

  it('keeps answering after the repository it found is removed', () => {
    const repo = join(root, 'short-lived')
    mkdirSync(join(repo, '.git'), { recursive: true })
    const locator = new ProjectLocator()
    const found = locator.locate(repo)
    rmSync(repo, { recursive: true, force: true })
    assert.deepEqual(locator.locate(repo), found)
  })
})
