/**
 * The package as DSH and npm read it: the DSH range the plugin declares where DSH looks for one (a peer on
 * @deepseek-ai/dsh, judged the way DSH's boot gate judges it), and a Node range no wider than what the tests run on.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { REPO_ROOT } from '../scripts/dsh-profile.ts'

/** The two semver calls used here; `semver` is the package DSH's boot gate and npm both judge ranges with. */
interface Semver {
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean
  validRange(range: string): string | null
}
const semver = createRequire(import.meta.url)('semver') as Semver

interface Manifest {
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
const TESTED_DSH = (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/@deepseek-ai/dsh/package.json'), 'utf8')) as { version: string }).version
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
    assert.deepEqual(hostPeers().map(([name]) => name), [HOST], 'one host peer, so the gate has one range to judge')
  })

  it('admits the DSH the tests run against, and its pinned devDependency is that version', () => {
    assert.equal(PACKAGE.devDependencies?.[HOST], TESTED_DSH)
    assert.equal(gateAdmits(TESTED_DSH), true, `DSH's gate would refuse the tested ${TESTED_DSH}`)
    // npm and pnpm check peers without includePrerelease: the range's own floor has to carry the prerelease.
    assert.equal(semver.satisfies(TESTED_DSH, PACKAGE.peerDependencies?.[HOST] ?? '<0.0.0-0'), true)
  })

  it('admits the later 0.1 and 0.2 hosts and stops before every 0.3.0, prereleases included', () => {
    for (const version of ['0.1.0', '0.1.7-rc.2', '0.2.0-rc.1', '0.2.2-rc.1', '0.2.9']) assert.equal(gateAdmits(version), true, version)
    for (const version of ['0.1.0-rc.7', '0.3.0-0', '0.3.0-rc.1', '0.3.0', '0.4.0', '1.0.0']) assert.equal(gateAdmits(version), false, version)
  })

  it('claims no Node beyond the 22 line the tests run on, from the 22.19 DSH itself needs', () => {
    const range = PACKAGE.engines?.['node'] ?? ''
    assert.equal(semver.satisfies(process.versions.node, range), true, `the tests run on ${process.version}`)
    assert.equal(semver.satisfies('22.19.0', range), true)
    for (const version of ['22.18.0', '20.20.2', '24.0.0', '25.1.0']) assert.equal(semver.satisfies(version, range), false, version)
  })
})
