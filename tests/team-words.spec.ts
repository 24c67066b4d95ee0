/** The Team memory part's words (client/team-words.ts): a shared project and a share or stop put as sentences. */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { teamAnswerWords, teamProjectWords, type TeamProjectWire } from '../client/team-words.ts'

const NOW = Date.parse('2026-12-05T10:00:00.000Z')

const shop: TeamProjectWire = {
  project: { key: 'git:example.com/acme/shop', name: 'shop' },
  root: '/home/ada/src/shop',
  folder: '/home/ada/src/shop/.fact-memory',
  since: '2026-12-05T09:00:00.000Z',
  devices: [
    { id: 'ffee000011112222', name: 'bo-desktop', lastRecordClock: null, lastRecordAt: null, lastSeenAt: null },
  ],
  lastRound: {
    startedAt: '2026-12-05T09:58:00.000Z',
    finishedAt: '2026-12-05T09:58:01.000Z',
    outcome: 'ok',
    sent: 2,
    received: 1,
    compacted: false,
  },
  pending: 0,
  problems: [
    { code: 'damaged_file', message: 'bo-desktop: devices/ffee000011112222/segments/0000000002.seg: truncated' },
  ],
  running: false,
  nextRoundAt: null,
}

describe('team memory words', () => {
  it("names the folder, the teammates' devices, the last round and the problems", () => {
    assert.deepEqual(teamProjectWords(shop, NOW), [
      'shop: shared in /home/ada/src/shop/.fact-memory.',
      "Teammates' devices in the folder: bo-desktop.",
      'Last round 2 min ago: wrote 2 changes, read 1 change.',
      'Damaged file: bo-desktop: devices/ffee000011112222/segments/0000000002.seg: truncated',
    ])
    assert.equal(
      teamProjectWords({ ...shop, devices: [], lastRound: null, problems: [], pending: 3 }, NOW).join(' '),
      'shop: shared in /home/ada/src/shop/.fact-memory. No teammate has written to the folder yet (pull to get theirs). 3 changes waiting to be written.',
    )
  })

  it('says what sharing and stopping did, and that the user commits the folder', () => {
    const answer = {
      project: shop.project,
      root: shop.root,
      folder: shop.folder,
      shared: true,
      round: { ok: true, sent: 2, received: 0, compacted: false, devices: [], problems: [] },
      team: [shop],
    }
    assert.equal(
      teamAnswerWords(answer),
      'shop is shared in /home/ada/src/shop/.fact-memory: wrote 2 changes and read 0 changes. Commit the folder with your code.',
    )
    assert.match(
      teamAnswerWords({ ...answer, shared: false, round: null }),
      /^shop is no longer shared; what teammates said stays/u,
    )
  })
})
