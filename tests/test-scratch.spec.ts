/**
 * Where npm test puts its spec files' scratch files (scripts/test-scratch.mjs): a TMPDIR the caller named wins, the
 * memory file system only with room there and in the machine, the OS temporary folder otherwise.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ROOM_NEEDED, scratchPlace } from '../scripts/test-scratch.mjs'

describe('the test run keeps its scratch files in memory only when there is room', () => {
  const roomy = { memoryFree: ROOM_NEEDED * 3, machineFree: ROOM_NEEDED * 2 }

  it('uses the memory file system when it and the machine have room and TMPDIR is not set', () => {
    assert.equal(scratchPlace({ tmpdirVariable: undefined, ...roomy }), 'memory')
    assert.equal(scratchPlace({ tmpdirVariable: '', ...roomy }), 'memory')
  })

  it('keeps a TMPDIR the caller set', () => {
    assert.equal(scratchPlace({ tmpdirVariable: '/scratch', ...roomy }), 'named')
  })

  it('falls back to the OS temporary folder without the memory file system or without room', () => {
    assert.equal(scratchPlace({ tmpdirVariable: undefined, memoryFree: undefined, machineFree: ROOM_NEEDED }), 'os')
    assert.equal(
      scratchPlace({ tmpdirVariable: undefined, memoryFree: 64 * 1024 ** 2, machineFree: ROOM_NEEDED }),
      'os',
    )
    assert.equal(
      scratchPlace({ tmpdirVariable: undefined, memoryFree: ROOM_NEEDED, machineFree: ROOM_NEEDED - 1 }),
      'os',
    )
  })
})
