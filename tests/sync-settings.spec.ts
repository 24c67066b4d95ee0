/**
 * The sync settings: their schemastery declaration (defaults, bounds, the passphrase as a credential reference) and
 * their reading into sync on, off, or an error in words that names the setting and never echoes a secret; the status
 * while sync is off or misconfigured validates against the status schema; the passphrase comes from the credential
 * store and never shows in an error.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CredentialProvider } from '@deepseek-ai/dsh-credentials'
import { resolveCredentialStrictly } from '../src/host/credentials.ts'
import { SegmentCipher } from '../src/sync/segment-cipher.ts'
import { resolveSyncCipher } from '../src/sync/sync-passphrase.ts'
import { readDeviceName, readSyncSettings, SYNC_DEFAULTS, syncSettingsSchema } from '../src/sync/sync-settings.ts'
import { syncStatusSchema } from '../src/sync/sync-status.schema.ts'
import { classifyProblem, idleSyncStatus } from '../src/sync/sync-status.ts'

describe('the sync settings', () => {
  it('declares five settings with their defaults, sync off, and the passphrase as a credential reference', () => {
    assert.deepEqual(syncSettingsSchema({}), SYNC_DEFAULTS)
    assert.deepEqual(SYNC_DEFAULTS, {
      syncTarget: '',
      syncPassphraseRef: 'FACT_MEMORY_SYNC_PASSPHRASE',
      syncSensitive: false,
      syncIntervalMinutes: 5,
      syncDeviceName: '',
    })
    assert.throws(() => syncSettingsSchema({ syncIntervalMinutes: 2000 }), /syncIntervalMinutes/u)
    assert.throws(() => syncSettingsSchema({ syncDeviceName: 'x'.repeat(201) }), /syncDeviceName/u)
    assert.throws(() => syncSettingsSchema({ syncIntervalMinutes: -1 }), /syncIntervalMinutes/u)
    const declared = JSON.stringify(syncSettingsSchema.toJSON())
    assert.match(declared, /"role":"credential-ref"/u)
    assert.deepEqual(readSyncSettings(syncSettingsSchema({})), { kind: 'off' })
    assert.deepEqual(readSyncSettings({ syncTarget: '   ' }), { kind: 'off' })
  })

  it('never reads a passphrase as absent while no credential store can be asked', async () => {
    const name = 'FACT_MEMORY_TEST_SYNC_PASSPHRASE_PROBE'
    await assert.rejects(resolveCredentialStrictly(undefined, name), /credential store is not available/u)
    const store = { resolve: () => Promise.resolve(undefined) } as unknown as CredentialProvider
    assert.equal(await resolveCredentialStrictly(store, name), undefined, 'a store that has none: plain files')
    process.env[name] = 'from the environment'
    try {
      assert.equal(await resolveCredentialStrictly(undefined, name), 'from the environment')
    } finally {
      delete process.env[name]
    }
  })

  it('reads a device name with its spaces and control characters collapsed; empty follows the host name', () => {
    assert.equal(readDeviceName('  home\tdesktop\u0000 2 \n'), 'home desktop 2')
    assert.equal(readDeviceName(''), null)
    assert.equal(readDeviceName(' \n\t '), null)
    assert.equal(readDeviceName(undefined), null)
    assert.equal(readDeviceName(`${'a'.repeat(199)} b`)?.length, 199)
  })

  it('reads a folder and a git remote, the URL masked where it is shown', () => {
    assert.deepEqual(readSyncSettings({ syncTarget: '/mnt/sync/memory', syncIntervalMinutes: 0 }), {
      kind: 'on',
      target: { kind: 'folder', path: '/mnt/sync/memory' },
      shown: '/mnt/sync/memory',
      passphraseRef: 'FACT_MEMORY_SYNC_PASSPHRASE',
      sensitive: false,
      intervalMs: 0,
    })
    const git = readSyncSettings({
      syncTarget: 'ssh://git@example.com/me/memory.git',
      syncPassphraseRef: '',
      syncSensitive: true,
      syncIntervalMinutes: 15,
    })
    assert.deepEqual(git, {
      kind: 'on',
      target: { kind: 'git', url: 'ssh://git@example.com/me/memory.git' },
      shown: 'ssh://***@example.com/me/memory.git',
      passphraseRef: null,
      sensitive: true,
      intervalMs: 900_000,
    })
    assert.equal(readSyncSettings({ syncTarget: 'git@example.com:me/memory.git' }).kind, 'on')
  })

  it('refuses bad values in words that name the setting, never echoing a secret', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { syncTarget: 'relative/folder' },
        /^syncTarget: the sync target must be an absolute folder path or a git remote URL/u,
      ],
      [
        { syncTarget: 'https://me:hunter2@example.com/memory.git' },
        /^syncTarget: the sync target URL carries a password or token/u,
      ],
      [{ syncTarget: 'http://example.com/memory.git' }, /^syncTarget: a plain http:\/\/ remote/u],
      [{ syncTarget: 42 }, /^syncTarget must be text/u],
      [
        { syncTarget: '/sync', syncPassphraseRef: 'correct horse battery staple' },
        /^syncPassphraseRef must name a credential/u,
      ],
      [{ syncTarget: '/sync', syncSensitive: 'yes' }, /^syncSensitive must be true or false/u],
      [
        { syncTarget: '/sync', syncIntervalMinutes: 1.5 },
        /^syncIntervalMinutes must be a whole number of minutes from 0/u,
      ],
      [{ syncTarget: '/sync', syncIntervalMinutes: 1441 }, /^syncIntervalMinutes must be/u],
    ]
    for (const [raw, expected] of cases) {
      const read = readSyncSettings(raw)
      assert.equal(read.kind, 'error', JSON.stringify(raw))
      if (read.kind !== 'error') continue
      assert.match(read.message, expected)
      assert.ok(!read.message.includes('hunter2') && !read.message.includes('horse'), read.message)
    }
  })

  it('shows sync off, and settings that cannot be used, as a valid status', () => {
    const device = { id: 'laptop', name: 'laptop machine' }
    const off = syncStatusSchema.parse(idleSyncStatus(device, { kind: 'off' }))
    assert.deepEqual([off.state, off.problems, off.nextRoundAt], ['off', [], null])
    const read = readSyncSettings({ syncTarget: 'relative' })
    assert.equal(read.kind, 'error')
    if (read.kind !== 'error') return
    const invalid = syncStatusSchema.parse(idleSyncStatus(device, read))
    assert.deepEqual([invalid.state, invalid.problems.map((problem) => problem.code)], ['invalid', ['settings']])
  })

  it('sorts the problems a round words into closed codes', () => {
    const cases: [string, string][] = [
      ['the sync remote cannot be reached: fatal: could not read from remote', 'unreachable'],
      ['git fetch did not finish in time; it was stopped and will be tried again', 'unreachable'],
      ["the sync folder's disk is full; nothing was lost, the next round tries again", 'target_full'],
      ['the sync folder cannot be written; nothing was lost, the next round tries again', 'target_unwritable'],
      [
        'desktop: devices/desktop/segments/0000000001.seg: the passphrase does not open this file (or the file was altered after it was sealed)',
        'passphrase',
      ],
      [
        'desktop: devices/desktop/segments/0000000001.seg: the file is encrypted and no sync passphrase is set on this machine',
        'passphrase',
      ],
      [
        'my: pc: devices/my-pc/segments/0000000002.seg: the file is truncated before the end of its header',
        'damaged_file',
      ],
      [
        'desktop: devices/desktop/snapshots/0000000009.snap: record 3: its checksum does not match (the line is damaged); skipped',
        'damaged_file',
      ],
      ['another device pushed first', 'failed'],
    ]
    for (const [message, code] of cases) assert.deepEqual(classifyProblem(message), { code, message }, message)
  })
})

describe('the sync passphrase', () => {
  it('comes from the credential store: none means plain files, a failing store is a failure in words without the secret', async () => {
    assert.deepEqual(await resolveSyncCipher(null, async () => ({ value: 'never asked' })), {
      ok: true,
      cipher: undefined,
    })
    assert.deepEqual(await resolveSyncCipher('FACT_MEMORY_SYNC_PASSPHRASE', async () => undefined), {
      ok: true,
      cipher: undefined,
    })
    const asked: string[] = []
    const read = await resolveSyncCipher('FACT_MEMORY_SYNC_PASSPHRASE', async (ref) => {
      asked.push(ref)
      return { value: 'correct horse battery staple' }
    })
    assert.deepEqual(asked, ['FACT_MEMORY_SYNC_PASSPHRASE'])
    assert.ok(read.ok && read.cipher instanceof SegmentCipher)
    const failed = await resolveSyncCipher('FACT_MEMORY_SYNC_PASSPHRASE', async () => {
      throw new Error('store locked: correct horse battery staple')
    })
    assert.equal(failed.ok, false)
    assert.ok(
      !failed.ok &&
        /could not be read from the credential store/u.test(failed.reason) &&
        !failed.reason.includes('horse'),
    )
  })
})
