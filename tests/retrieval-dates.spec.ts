/**
 * Relative dates through the real search path: facts observed on different days of a Los Angeles store under a fake
 * clock, asked about "yesterday" and 昨天 just after local midnight (when yesterday's last fact shares its UTC day
 * with today's first). Yesterday's fact ranks first through the date channel; the same question without the date
 * word runs no date channel.
 */
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { SearchValue } from '../src/retrieval/render.ts'
import { DAY_MS, FakeClock } from './helpers/fake-clock.ts'
import { ONE_DRIVER, openMemory, writeFact, type MemoryHandle } from './helpers/store.ts'

const HOUR_MS = 3_600_000

for (const driver of ONE_DRIVER) {
  describe(`search by relative dates (${driver})`, () => {
    let clock: FakeClock
    let h: MemoryHandle
    beforeEach(() => {
      // Saturday 7 March 2026, 22:30 in Los Angeles.
      clock = new FakeClock('2026-03-08T06:30:00.000Z')
      h = openMemory(driver, clock, { storeTimezone: 'America/Los_Angeles' })
    })
    afterEach(() => {
      h.dispose()
    })

    const search = (query: string): Promise<SearchValue> =>
      h.memory.search({ query, limit: 5, asOf: undefined }, h.config)
    const firstValue = (value: SearchValue): string | undefined => value.results[0]?.values[0]?.value

    /** Four facts on three local days; returns at Tuesday 10 March 00:30 local, an hour after yesterday's fact. */
    function observeOverDays(facts: readonly (readonly [subject: string, property: string, value: string])[]): void {
      const [older, dayBefore, yesterday, today] = facts
      assert.ok(older !== undefined && dayBefore !== undefined && yesterday !== undefined && today !== undefined)
      const write = ([subject, property, value]: readonly [string, string, string]): void => {
        writeFact(h.memory, h.config, { subject, property, value })
      }
      write(older)
      clock.advance(DAY_MS) // Sunday 8 March, 23:30 PDT (the clocks went forward that morning)
      write(dayBefore)
      clock.advance(DAY_MS) // Monday 9 March, 23:30 PDT: 06:30 UTC on the 10th
      write(yesterday)
      clock.advance(HOUR_MS) // Tuesday 10 March, 00:30 PDT: 07:30 UTC on the 10th
      write(today)
    }

    it('ranks yesterday\'s change first for "what did we change yesterday", through the date channel', async () => {
      observeOverDays([
        ['billing-api', 'port', 'changed to 7801'],
        ['billing-api', 'deploy region', 'changed to eu-west-1'],
        ['billing-api', 'log level', 'changed to debug'],
        ['billing-api', 'owner', 'changed to the platform team'],
      ])
      const dated = await search('what did we change yesterday')
      assert.ok(dated.channels.includes('date'), dated.channels.join(', '))
      assert.equal(firstValue(dated), 'changed to debug')

      const undated = await search('what did we change')
      assert.ok(!undated.channels.includes('date'), undated.channels.join(', '))
      assert.equal(undated.results.length, 4, 'every change matches the words alone')
    })

    it("ranks yesterday's change first for 昨天改了什么, through the date channel", async () => {
      observeOverDays([
        ['支付服务', '端口', '改成 7801'],
        ['支付服务', '部署区域', '改成 上海'],
        ['支付服务', '日志级别', '改成 debug'],
        ['支付服务', '负责人', '改成 平台组'],
      ])
      const dated = await search('昨天改了什么')
      assert.ok(dated.channels.includes('date'), dated.channels.join(', '))
      assert.equal(firstValue(dated), '改成 debug')

      const undated = await search('改了什么')
      assert.ok(!undated.channels.includes('date'), undated.channels.join(', '))
    })

    it('runs no date channel for "30 days ago" when nothing was observed then, reads no identifier from the 30, and finds the day 2 days ago', async () => {
      observeOverDays([
        ['billing-api', 'port', 'changed to 7801'],
        ['billing-api', 'deploy region', 'changed to eu-west-1'],
        ['billing-api', 'log level', 'changed to debug'],
        ['billing-api', 'owner', 'changed to the platform team'],
      ])
      const value = await search('what changed 30 days ago')
      assert.ok(!value.channels.includes('date'), 'no fact is dated then')
      assert.ok(!value.channels.includes('identifier'), value.channels.join(', '))
      assert.deepEqual((await search('what changed 2 days ago')).results[0]?.values[0]?.value, 'changed to eu-west-1')
    })
  })
}
