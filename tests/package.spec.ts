/**
 * The package as DSH and npm read it: the DSH range the plugin declares where DSH looks for one (a peer on
 * @deepseek-ai/dsh, judged the way DSH's boot gate judges it), a Node range no wider than what the tests run on, and
 * the check `npm install` runs on the native binding.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/** The repository root (this file is not in a host's tier: it boots none). */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The two semver calls used here; `semver` is the package DSH's boot gate and npm both judge ranges with. */
interface Semver {
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean
  validRange(range: string): string | null
}
const semver = createRequire(import.meta.url)('semver') as Semver

interface Manifest {
  readonly scripts?: Record<string, string>
  readonly engines?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

function manifest(path: string): Manifest {
  return JSON.parse(readFileSync(path, 'utf8')) as Manifest
}

const PACKAGE = manifest(join(REPO_ROOT, 'package.json'))
/** The host the tests boot: the installed @deepseek-ai/dsh, which the devDependency pins. */
const TESTED_DSH = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/@deepseek-ai/dsh/package.json'), 'utf8')) as { version: string }
).version
const HOST = '@deepseek-ai/dsh'

/** The peers DSH's boot gate reads: @deepseek-ai/dsh and @deepseek-ai/dsh-*. */
function hostPeers(): [string, string][] {
  return Object.entries(PACKAGE.peerDependencies ?? {}).filter(([name]) => name === HOST || name.startsWith(`${HOST}-`))
}

/** Whether DSH would load the plugin: every host peer satisfied, prereleases taking part (as the gate compares). */
function gateAdmits(version: string): boolean {
  return hostPeers().every(([, range]) => semver.satisfies(version, range, { includePrerelease: true }))
}

describe('package metadata', () => {
  it('declares the DSH range as a peer of @deepseek-ai/dsh, optional so that no install pulls in a second host', () => {
    const range = PACKAGE.peerDependencies?.[HOST]
    assert.equal(typeof range, 'string', 'package.json has no peerDependencies["@deepseek-ai/dsh"]')
    assert.notEqual(semver.validRange(range ?? ''), null, `${range} is not a semver range`)
    assert.equal(PACKAGE.peerDependenciesMeta?.[HOST]?.optional, true)
    assert.deepEqual(
      hostPeers().map(([name]) => name),
      [HOST],
      'one host peer, so the gate has one range to judge',
    )
  })

  it('admits the DSH the tests run against, and its pinned devDependency is that version', () => {
    assert.equal(PACKAGE.devDependencies?.[HOST], TESTED_DSH)
    assert.equal(gateAdmits(TESTED_DSH), true, `DSH's gate would refuse the tested ${TESTED_DSH}`)
    // npm and pnpm check peers without includePrerelease: the range's own floor has to carry the prerelease.
    assert.equal(semver.satisfies(TESTED_DSH, PACKAGE.peerDependencies?.[HOST] ?? '<0.0.0-0'), true)
  })

  it('admits the later 0.1 and 0.2 hosts and stops before every 0.3.0, prereleases included', () => {
    for (const version of ['0.1.0', '0.1.7-rc.2', '0.2.0-rc.1', '0.2.2-rc.1', '0.2.9'])
      assert.equal(gateAdmits(version), true, version)
    for (const version of ['0.1.0-rc.7', '0.3.0-0', '0.3.0-rc.1', '0.3.0', '0.4.0', '1.0.0'])
      assert.equal(gateAdmits(version), false, version)
  })

  it('claims no Node beyond the 22 line the tests run on, from the 22.19 DSH itself needs', () => {
    const range = PACKAGE.engines?.['node'] ?? ''
    assert.equal(semver.satisfies(process.versions.node, range), true, `the tests run on ${process.version}`)
    assert.equal(semver.satisfies('22.19.0', range), true)
    for (const version of ['22.18.0', '20.20.2', '24.0.0', '25.1.0'])
      assert.equal(semver.satisfies(version, range), false, version)
  })
})

/** The folder of the Node running the tests (bin/node's grandparent), what npm_config_nodedir should name for it. */
const THIS_NODE_FOLDER = dirname(dirname(process.execPath))

/** Run the install check under this Node, with npm's environment as `npm install` gives it. */
function checkNative(
  args: readonly string[],
  nodedir = '/usr',
): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_nodedir: nodedir }
  const result = spawnSync(process.execPath, ['scripts/check-native.mjs', ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** The machine's own Node when its ABI differs from this one's: the binary built for this Node cannot load there. */
function otherAbiNode(): string | undefined {
  const candidate = '/usr/bin/node'
  if (!existsSync(candidate)) return undefined
  const abi = spawnSync(candidate, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim()
  return abi !== '' && abi !== process.versions.modules ? candidate : undefined
}

describe('npm install check of better-sqlite3', () => {
  it('runs as part of prepare, after the build, so every npm install in a checkout ends with it', () => {
    assert.match(PACKAGE.scripts?.['prepare'] ?? '', /&& node scripts\/check-native\.mjs$/u)
  })

  it('confirms in one line that the binding loads under the Node that installed it', () => {
    const run = checkNative([], THIS_NODE_FOLDER)
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stderr, '')
    assert.match(
      run.stdout,
      new RegExp(
        `better-sqlite3 loads under Node ${process.version.replaceAll('.', '\\.')} \\(NODE_MODULE_VERSION ${process.versions.modules}\\)`,
        'u',
      ),
    )
  })

  it('says loudly, for a Node the binary was not built for, what to set and how to rebuild, and leaves the install standing', (t) => {
    const node = otherAbiNode()
    if (node === undefined) {
      t.skip('no second Node with another ABI on this machine (/usr/bin/node)')
      return
    }
    // The newcomer's case mirrored: the binary was compiled against another Node's headers (here, this one's).
    const run = checkNative(['--node', node], THIS_NODE_FOLDER)
    assert.equal(run.status, 0, 'a warning, not a failed install: the store still works on node:sqlite')
    assert.match(run.stderr, new RegExp(`built for NODE_MODULE_VERSION ${process.versions.modules}`, 'u'))
    assert.ok(
      run.stderr.includes(
        `npm's config sets nodedir=${THIS_NODE_FOLDER}, so node-gyp compiles native addons against the headers there`,
      ),
      run.stderr,
    )
    assert.match(run.stderr, /node:sqlite/u)
    assert.match(run.stderr, /PATH=\/usr\/bin:"\$PATH" npm_config_nodedir=\/usr npm rebuild better-sqlite3/u)
  })
})
