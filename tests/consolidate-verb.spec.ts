/**
 * The consolidate verb's refusals and its ledger read, through the verb table on a real store (one binding): with
 * autoConsolidate false a sweep is refused and says how to turn it on, the ledger still reads, and a body that is
 * neither {force: true} nor {summary: true} is invalid.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { ONE_DRIVER } from './helpers/store.ts'
import { verbHarness, type VerbHarness } from './helpers/verbs.ts'

for (const driver of ONE_DRIVER) {
  describe(`consolidate verb (${driver})`, () => {
    let v: VerbHarness | undefined
    afterEach(() => {
      v?.dispose()
    })

    it('with autoConsolidate false refuses a sweep clearly and still reads the ledger', async () => {
      v = verbHarness(driver, { autoConsolidate: false })
      const refused = await v.call('consolidate', { force: true })
      assert.ok(!refused.ok)
      assert.equal(refused.code, 'unavailable')
      assert.match(refused.message, /autoConsolidate is false/u)
      const summary = await v.ok('consolidate', { summary: true })
      assert.deepEqual(
        [summary['enabled'], summary['total'], summary['sweeps'], summary['lastSweepAt']],
        [false, 0, [], null],
      )
    })

    it('refuses a sweep where no review service runs, and a body that asks for nothing', async () => {
      v = verbHarness(driver)
      const refused = await v.call('consolidate', { force: true })
      assert.ok(!refused.ok && refused.code === 'unavailable')
      for (const body of [{}, { force: false }, { force: true, summary: true }, { summary: true, limit: 0 }]) {
        const outcome = await v.call('consolidate', body)
        assert.equal(!outcome.ok && outcome.code, 'invalid_arguments', JSON.stringify(body))
      }
    })
  })
}
