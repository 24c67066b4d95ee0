/**
 * The bench's sync part (scripts/bench-sync.ts) at a tiny size, so its code cannot rot: two real stores reach the
 * same current facts through a real folder, the byte counts are real, and a change on A becomes current on B.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { syncBench } from '../scripts/bench-sync.ts'

describe('the sync bench part', () => {
  it('runs the first sync, quiet rounds and change-to-current on a tiny library', async () => {
    const [row] = await syncBench([40], { quietRounds: 2, latencyTrials: 1, pollMs: 50, debounceMs: 100 })
    assert.ok(row !== undefined)
    for (const first of [row.plain, row.encrypted]) {
      assert.ok(first.snapshotRecords > 0 && first.sent === first.snapshotRecords, JSON.stringify(first))
      assert.equal(first.received, first.sent, 'B received every record A sealed')
      assert.equal(first.currentOnB, first.currentOnA, 'B holds what A holds')
      assert.ok(first.folderBytes > 0 && first.bytesOneChange > 0 && first.bytesPerChangeOf100 > 0)
    }
    assert.ok(row.encrypted.bytesOneChange > row.plain.bytesOneChange, 'sealing adds its header and tag')
    assert.ok(row.latencyDebounce.max >= 100, 'the debounce is waited for')
    assert.ok(row.latencySyncNow.max > 0)
  })
})
