/**
 * Paused sessions on a real store (one binding): a pause survives a restart, asking for the state a session is
 * already in changes nothing, the model is told of each change once (a resume of a pause it was never told of needs no
 * word), and none of it moves the store generation; through the verb table, the sessions list says which are paused.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { ONE_DRIVER } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

for (const driver of ONE_DRIVER) {
  describe(`paused sessions (${driver})`, () => {
    let v: VerbHarness | undefined
    afterEach(() => {
      v?.dispose()
    })

    const pauses = (harness: VerbHarness) => {
      const opened = harness.h.memory.storeSet()
      if (!('stores' in opened)) throw new Error('store not open')
      return opened.stores.pauses
    }

    it('keeps a pause across a restart, tells each change once, and never moves the generation', async () => {
      v = verbHarness(driver)
      const generation = v.generation()
      assert.equal((await v.ok('session-pause', { sessionId: 's-1', paused: true }))['changed'], true)
      assert.equal(
        (await v.ok('session-pause', { sessionId: 's-1', paused: true }))['changed'],
        false,
        'already paused',
      )
      assert.equal(pauses(v).untoldChange('s-1'), 'paused')
      pauses(v).markTold('s-1')
      v.h.memory.close()
      v.h.memory.open(v.h.dataDir)
      assert.equal(pauses(v).isPaused('s-1'), true, 'the pause survives a restart')
      assert.equal(pauses(v).untoldChange('s-1'), undefined, 'and so does having told it')
      await v.ok('session-pause', { sessionId: 's-1', paused: false })
      assert.equal(pauses(v).untoldChange('s-1'), 'resumed')
      pauses(v).markTold('s-1')
      assert.equal(
        Number(v.h.db().get('SELECT count(*) AS n FROM session_pauses')?.['n']),
        0,
        'a told resume leaves no row',
      )
      // A pause resumed before the model heard of it needs no word either way.
      await v.ok('session-pause', { sessionId: 's-2', paused: true })
      await v.ok('session-pause', { sessionId: 's-2', paused: false })
      assert.equal(pauses(v).untoldChange('s-2'), undefined)
      assert.equal(v.generation(), generation, 'pausing is bookkeeping')
    })

    it('lists the paused state in sessions, and refuses a body without a session id', async () => {
      v = verbHarness(driver)
      await v.ok('session-pause', { sessionId: 's-9', paused: true })
      const listed = (await v.ok('sessions', { sessionIds: ['s-9', 's-10'] }))['sessions'] as {
        sessionId: string
        paused: boolean
      }[]
      assert.deepEqual(
        listed.map((session) => [session.sessionId, session.paused]),
        [['s-9', true]],
      )
      for (const body of [
        { paused: true },
        { sessionId: '', paused: true },
        { sessionId: 's', paused: 'yes' },
        { sessionId: 's', paused: true, extra: 1 },
      ]) {
        const outcome = await v.call('session-pause', body)
        assert.equal(!outcome.ok && outcome.code, 'invalid_arguments', JSON.stringify(body))
      }
    })
  })
}
