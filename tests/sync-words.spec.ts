/** The Sync panel's words (client/sync-words.ts): a status and a round put as sentences, URLs as the status gives them. */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  peerWords,
  problemWords,
  roundWords,
  syncNowWords,
  syncStateWords,
  type SyncStatusWire,
} from '../client/sync-words.ts'

const NOW = Date.parse('2026-12-05T10:00:00.000Z')

const on: SyncStatusWire = {
  state: 'on',
  target: { kind: 'git', where: 'ssh://***@git.example.org/me/memory.git' },
  encrypted: true,
  device: { id: 'a1b2c3d4e5f60718', name: 'laptop' },
  devices: [
    {
      id: 'ffee000011112222',
      name: 'desktop',
      lastRecordClock: '1764928500000-000000-ffee000011112222',
      lastRecordAt: '2026-12-05T09:55:00.000Z',
      lastSeenAt: '2026-12-05T09:58:00.000Z',
    },
  ],
  lastRound: {
    startedAt: '2026-12-05T09:58:00.000Z',
    finishedAt: '2026-12-05T09:58:01.000Z',
    outcome: 'ok',
    sent: 1,
    received: 3,
    compacted: false,
  },
  pending: 2,
  problems: [],
  running: false,
  failures: 0,
  nextRoundAt: '2026-12-05T10:00:30.000Z',
}

describe('the Sync panel words', () => {
  it('names the target as shown, whether files are encrypted, and says when rounds fail', () => {
    assert.equal(
      syncStateWords(on),
      'Syncing with the git remote ssh://***@git.example.org/me/memory.git, encrypted with your passphrase.',
    )
    assert.match(syncStateWords({ ...on, failures: 2 }), /^Trying to sync with .*the last rounds failed/u)
    assert.match(syncStateWords({ ...on, state: 'off', target: null }), /^Sync is off\. Set a sync target/u)
    assert.match(syncStateWords({ ...on, encrypted: false }), /in plain files \(no passphrase set\)/u)
  })

  it('says what waits, the last round and the next, and each device with its last change and last sync', () => {
    assert.deepEqual(roundWords(on, 'UTC', NOW), [
      '2 changes waiting to be sent.',
      'Last round 2 min ago (2026-12-05 09:58), done: sent 1 change, received 3 changes.',
      'Next round in 30 s (2026-12-05 10:00).',
    ])
    assert.equal(
      peerWords(on.devices[0] as SyncStatusWire['devices'][number], 'UTC', NOW),
      'desktop (ffee000011112222): last change 2026-12-05 09:55, last synced 2 min ago',
    )
    const failing = roundWords(
      {
        ...on,
        failures: 3,
        lastRound: { ...(on.lastRound as NonNullable<SyncStatusWire['lastRound']>), outcome: 'failed' },
      },
      'UTC',
      NOW,
    )
    assert.ok(failing.includes('3 failed rounds in a row; it retries by itself.'), failing.join(' | '))
  })

  it('puts problems and a Sync now round in words', () => {
    assert.equal(
      problemWords({ code: 'unreachable', message: 'the sync remote cannot be reached' }),
      'Cannot reach the target: the sync remote cannot be reached',
    )
    const round = { ok: true, sent: 1, received: 0, compacted: false, devices: [], problems: [] }
    assert.equal(syncNowWords(round), 'Synced: sent 1 change, received 0 changes.')
    assert.match(syncNowWords({ ...round, ok: false }), /^Sync failed; the problems above say why/u)
  })
})
