/**
 * A project is its repository: the pure reading of remote URLs and git configuration, and the locator over real
 * repositories made with the real `git` command line (a remote, a worktree, a clone of a local folder, a second
 * clone of a repository without a remote, a moved folder, another repository, and a fake `.git` with no history).
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ProjectLocator } from '../src/project/project-locator.ts'
import { projectNameOf } from '../src/project/project-ref.ts'
import {
  configuredRemotes,
  isFolderKey,
  isRepositoryKey,
  remoteTarget,
  rootCommitKey,
} from '../src/project/repository-identity.ts'
import { removeDir, tempDir } from './helpers/store.ts'

describe('reading a remote URL', () => {
  it('gives every spelling of one network remote one key, without credentials, port or .git', () => {
    const key = 'git:github.com/acme/billing-service'
    for (const url of [
      'git@github.com:acme/billing-service.git',
      'git@GitHub.com:Acme/Billing-Service.git',
      'ssh://git@github.com:22/acme/billing-service.git',
      'ssh://git@github.com/acme/billing-service',
      'https://github.com/acme/billing-service.git',
      'https://ada:ghp_secrettoken123@github.com/acme/billing-service/',
      'git://github.com/acme/billing-service.git',
      'github.com:acme/billing-service',
    ]) {
      const target = remoteTarget(url)
      assert.deepEqual(target.kind === 'network' ? target.key : target, key, url)
    }
    assert.deepEqual(remoteTarget('https://gitlab.example.com/group/sub/tool.git'), {
      kind: 'network',
      key: 'git:gitlab.example.com/group/sub/tool',
      name: 'tool',
    })
  })

  it('takes a path on this machine for a local remote, and an empty or foreign one for none', () => {
    assert.deepEqual(remoteTarget('/srv/git/billing'), { kind: 'local', path: '/srv/git/billing' })
    assert.deepEqual(remoteTarget('../billing'), { kind: 'local', path: '../billing' })
    assert.deepEqual(remoteTarget('file:///srv/git/billing'), { kind: 'local', path: '/srv/git/billing' })
    assert.deepEqual(remoteTarget('C:\\src\\billing'), { kind: 'local', path: 'C:\\src\\billing' })
    assert.deepEqual(remoteTarget(''), { kind: 'none' })
    assert.deepEqual(remoteTarget('ftp://example.com/x'), { kind: 'none' })
  })

  it("reads each remote's first url from a git config, quoted or not, comments aside", () => {
    const config = [
      '[core]',
      '\trepositoryformatversion = 0',
      '[remote "origin"]',
      '\turl = git@github.com:acme/a.git ; the main one',
      '\tfetch = +refs/heads/*:refs/remotes/origin/*',
      '\turl = https://mirror.example.com/a.git',
      '[remote "up stream"]',
      '\turl = "https://github.com/other/a.git"',
      '[branch "main"]',
      '\turl = not-a-remote',
    ].join('\n')
    assert.deepEqual(
      [...configuredRemotes(config)],
      [
        ['origin', 'git@github.com:acme/a.git'],
        ['up stream', 'https://github.com/other/a.git'],
      ],
    )
  })

  it('keys a root commit by its full id, and tells repository keys from folder keys', () => {
    const sha = 'A'.repeat(40)
    assert.equal(rootCommitKey(`${sha}\n`), `root:${'a'.repeat(40)}`)
    assert.equal(rootCommitKey('abc123'), undefined)
    assert.equal(isRepositoryKey('git:github.com/a/b'), true)
    assert.equal(isRepositoryKey(`root:${'a'.repeat(40)}`), true)
    assert.equal(isRepositoryKey('/home/ada/src/b'), false)
    assert.equal(isFolderKey('/home/ada/src/b'), true)
    assert.equal(isFolderKey('C:/src/b'), true)
    assert.equal(isFolderKey('git:github.com/a/b'), false)
    assert.equal(
      projectNameOf('git:github.com/acme/billing-service'),
      'billing-service',
      'a name for a project the store has none for',
    )
    assert.equal(projectNameOf(`root:${'ab12cd3'.padEnd(40, '0')}`), 'repository ab12cd3')
  })
})

describe('the project of a real repository', () => {
  let root: string
  const git = (cwd: string, ...args: string[]): string => {
    const result = spawnSync(
      'git',
      ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args],
      { cwd, encoding: 'utf8' },
    )
    assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`)
    return result.stdout.trim()
  }
  const repo = (name: string, origin?: string): string => {
    const folder = join(root, name)
    mkdirSync(folder, { recursive: true })
    git(folder, 'init', '-q')
    if (origin !== undefined) git(folder, 'remote', 'add', 'origin', origin)
    writeFileSync(join(folder, 'README.md'), `# ${name}\n`)
    git(folder, 'add', '.')
    git(folder, 'commit', '-q', '-m', 'first')
    return folder
  }
  let billing: string
  let local: string
  before(() => {
    root = realpathSync(tempDir('fact-memory-repos-'))
    billing = repo('billing-service', 'git@github.com:acme/billing-service.git')
    local = repo('notes-tool')
  })
  after(() => {
    removeDir(root)
  })

  it('keys a repository with an origin by the origin, named by its folder, from any subfolder', () => {
    mkdirSync(join(billing, 'src', 'handlers'), { recursive: true })
    const project = new ProjectLocator().locate(join(billing, 'src', 'handlers'))
    assert.deepEqual(project, {
      key: 'git:github.com/acme/billing-service',
      name: 'billing-service',
      repository: true,
      folderKey: billing,
    })
  })

  it('gives a worktree the key of its main checkout, read from the common config', () => {
    const worktree = join(root, 'billing-hotfix')
    git(billing, 'worktree', 'add', '-q', '-b', 'hotfix', worktree)
    const project = new ProjectLocator().locate(worktree)
    assert.equal(project.key, 'git:github.com/acme/billing-service')
    assert.equal(project.name, 'billing-hotfix')
  })

  it('follows a clone of a local folder to the remote that folder names', () => {
    const clone = join(root, 'billing-second')
    git(root, 'clone', '-q', billing, clone)
    assert.equal(new ProjectLocator().locate(clone).key, 'git:github.com/acme/billing-service')
  })

  it('keys a repository without a remote by its root commit, shared by a second clone and kept by a moved folder', () => {
    const rootCommit = git(local, 'rev-list', '--max-parents=0', 'HEAD')
    const key = `root:${rootCommit}`
    assert.equal(new ProjectLocator().locate(local).key, key)
    const clone = join(root, 'notes-copy')
    git(root, 'clone', '-q', local, clone)
    assert.equal(new ProjectLocator().locate(clone).key, key)
    const moved = join(root, 'moved', 'notes-tool')
    mkdirSync(join(root, 'moved'), { recursive: true })
    renameSync(clone, moved)
    assert.equal(new ProjectLocator().locate(moved).key, key)
  })

  it('gives another repository another key', () => {
    const other = repo('shop-web', 'https://github.com/acme/shop-web.git')
    const keys = new Set([billing, local, other].map((folder) => new ProjectLocator().locate(folder).key))
    assert.equal(keys.size, 3)
  })

  it('keeps the folder key for a repository with no commit and no remote, and for a folder outside any', () => {
    const empty = join(root, 'empty-repo')
    mkdirSync(empty)
    git(empty, 'init', '-q')
    assert.deepEqual(new ProjectLocator().locate(empty), {
      key: empty,
      name: 'empty-repo',
      repository: true,
      folderKey: empty,
    })
    const plain = join(root, 'plain')
    mkdirSync(plain)
    assert.deepEqual(new ProjectLocator().locate(plain), { key: plain, name: 'plain', repository: false })
  })

  it('finds the repository a stored folder key names, and none for a folder that is gone', () => {
    const locator = new ProjectLocator()
    assert.equal(locator.repositoryOfFolder(billing)?.key, 'git:github.com/acme/billing-service')
    assert.equal(locator.repositoryOfFolder(join(root, 'never-there')), undefined)
    assert.equal(locator.repositoryOfFolder(join(root, 'plain')), undefined)
  })
})
