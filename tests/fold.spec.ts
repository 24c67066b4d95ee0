/**
 * The fold guard, pure: which two values are one recurring line apart from its calendar date, which date spellings
 * it reads, the fold history it keeps, and its operating point on the labeled pairs. Table cases in English and
 * Chinese.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { foldBench, readFoldPairs } from '../scripts/bench-fold.ts'
import { FOLD_HISTORY, foldedHistory, foldShape, foldVerdict } from '../src/rules/fold.ts'

describe('foldVerdict: lines that fold', () => {
  const cases: readonly (readonly [string, string])[] = [
    ['nightly backup finished 2026-11-24', 'nightly backup finished 2026-11-25'],
    ['Nightly backup finished on Nov 24, 2026', 'nightly backup finished on Nov 25, 2026'],
    ['self-check passed 24 Nov 2026', 'self-check passed 1 Dec 2026'],
    ['weekly sweep done 2026-11-24', 'weekly sweep done November 30th, 2026'],
    ['summary written to reports/2026/11/24/summary.md', 'summary written to reports/2026/11/25/summary.md'],
    ['backup completed at 2026-11-24T02:00:13Z', 'backup completed at 2026-11-25T02:01:40Z'],
    ['每日备份完成 2026-11-24', '每日备份完成 2026-11-25'],
    ['2026年11月24日 夜间构建成功', '2026年11月25日 夜间构建成功'],
    ['巡检通过（2026年11月24号）', '巡检通过（2026年12月1号）'],
    ['数据同步于2026/11/24完成', '数据同步于2026/11/25完成'],
  ]
  for (const [stored, incoming] of cases) {
    it(`folds "${incoming}" into "${stored}"`, () => {
      const verdict = foldVerdict(stored, incoming)
      assert.deepEqual(verdict, { fold: true, newer: true })
    })
  }

  it('tells a line dated before the stored one as not newer', () => {
    assert.deepEqual(foldVerdict('nightly backup finished 2026-11-25', 'nightly backup finished 2026-11-24'), {
      fold: true,
      newer: false,
    })
    assert.deepEqual(foldVerdict('每日备份完成 2026年11月25日', '每日备份完成 2026年11月24日'), {
      fold: true,
      newer: false,
    })
  })
})

describe('foldVerdict: lines that never fold', () => {
  const cases: readonly (readonly [string, string, string])[] = [
    ['187', '188', 'no_date'],
    ['port 7801', 'port 7802', 'no_date'],
    ['from 20260101 to 20260201', 'from 20260301 to 20260401', 'no_date'],
    ['nightly backup 20261124 ok', 'nightly backup 20261125 ok', 'no_date'],
    ['build 2026.11.24 green', 'build 2026.11.25 green', 'no_date'],
    ['deploy 11/24/2026 ok', 'deploy 11/25/2026 ok', 'no_date'],
    ['monthly report for November 2026', 'monthly report for December 2026', 'no_date'],
    ['月报 2026年11月 已发送', '月报 2026年12月 已发送', 'no_date'],
    ['from 2026-01-01 to 2026-02-01', 'from 2026-03-01 to 2026-04-01', 'several_dates'],
    ['2026年1月1日至2026年2月1日 冻结发布', '2026年3月1日至2026年4月1日 冻结发布', 'several_dates'],
    ['sweep 2026-11-24 replaced sweep 2026-11-23', 'sweep 2026-11-25 replaced sweep 2026-11-24', 'several_dates'],
    ['audit 2026-02-30 done', 'audit 2026-03-01 done', 'unreadable_date'],
    ['ok 2026-11-24', 'ok 2026-11-25', 'too_short'],
    ['完成 2026-11-24', '完成 2026-11-25', 'too_short'],
    ['2026-11-24', '2026-11-25', 'too_short'],
    ['backup 2026-11-24: 187 files', 'backup 2026-11-25: 188 files', 'different_text'],
    ['release v3 on 2026-11-24', 'release v4 on 2026-11-25', 'different_text'],
    ['备份完成 2026-11-24 共187个文件', '备份完成 2026-11-25 共188个文件', 'different_text'],
    ['staging backup ok 2026-11-24', 'prod backup ok 2026-11-25', 'different_text'],
    ['nightly backup finished 2026-11-24', 'nightly backup failed 2026-11-25', 'different_text'],
  ]
  for (const [stored, incoming, reason] of cases) {
    it(`keeps "${stored}" and "${incoming}" apart (${reason})`, () => {
      assert.deepEqual(foldVerdict(stored, incoming), { fold: false, reason })
    })
  }

  it('keeps a plan that moved apart: a date more than a day after the write is a plan, not a report of a day that came', () => {
    const writtenAt = '2026-12-01T09:00:00.000Z'
    assert.deepEqual(
      foldVerdict('the license expires on 2026-12-01', 'the license expires on 2027-12-01', { writtenAt }),
      { fold: false, reason: 'future_date' },
    )
    assert.deepEqual(foldVerdict('合同到期日为 2026-12-31', '合同到期日为 2027-06-30', { writtenAt }), {
      fold: false,
      reason: 'future_date',
    })
    assert.deepEqual(
      foldVerdict('nightly backup finished 2026-11-30', 'nightly backup finished 2026-12-02', { writtenAt }),
      { fold: true, newer: true },
      'a day ahead is a zone east of UTC',
    )
    assert.deepEqual(
      foldVerdict('the license expires on 2026-12-01', 'the license expires on 2027-12-01'),
      { fold: true, newer: true },
      "without the write's time the date is not compared",
    )
  })

  it('judges the incoming value too: a dated stored line never absorbs an undated one', () => {
    assert.deepEqual(foldVerdict('nightly backup finished 2026-11-24', 'nightly backup finished'), {
      fold: false,
      reason: 'no_date',
    })
  })
})

describe('foldShape', () => {
  it('reads the one date as a day and counts the letters and digits around it', () => {
    const shape = foldShape('Nightly backup finished on Nov 24, 2026')
    assert.ok(shape.ok)
    assert.equal(shape.day, '2026-11-24')
    assert.equal(shape.others, 'nightlybackupfinishedon'.length)
    const other = foldShape('nightly  backup finished on 2026/12/01')
    assert.ok(other.ok)
    assert.equal(shape.template, other.template, 'case, spacing and the date spelling do not change the line')
  })

  it('needs four letters or digits besides the date: three are too few, four Chinese characters are enough', () => {
    assert.deepEqual(foldShape('abc 2026-11-24'), { ok: false, reason: 'too_short' })
    assert.ok(foldShape('abcd 2026-11-24').ok)
    assert.ok(foldShape('备份完成 2026-11-24').ok)
  })

  it('reads dates only between 1900 and 2999', () => {
    assert.deepEqual(foldShape('archive from 1850-01-01 restored'), { ok: false, reason: 'unreadable_date' })
  })
})

describe('foldedHistory', () => {
  it('keeps the prior values in arrival order, the newest last', () => {
    assert.deepEqual(foldedHistory(['a 2026-11-22', 'a 2026-11-23'], 'a 2026-11-24'), [
      'a 2026-11-22',
      'a 2026-11-23',
      'a 2026-11-24',
    ])
  })

  it(`keeps only the last ${FOLD_HISTORY}`, () => {
    const full = Array.from({ length: FOLD_HISTORY }, (_, i) => `line ${i}`)
    const next = foldedHistory(full, 'line 20')
    assert.equal(next.length, FOLD_HISTORY)
    assert.equal(next[0], 'line 1')
    assert.equal(next.at(-1), 'line 20')
  })
})

describe('the labeled fold pairs', () => {
  it('hold at least 80 pairs of both labels in both languages, and the guard keeps precision at or above 0.95 on them', () => {
    const pairs = readFoldPairs()
    assert.ok(pairs.length >= 80, `${pairs.length} pairs`)
    for (const lang of ['en', 'zh'] as const) {
      for (const fold of [true, false])
        assert.ok(
          pairs.some((pair) => pair.lang === lang && pair.fold === fold),
          `${lang} ${String(fold)}`,
        )
    }
    const bench = foldBench(pairs)
    assert.ok(
      bench.precision >= 0.95,
      `precision ${bench.precision}: ${JSON.stringify(bench.misjudged.filter((pair) => !pair.fold))}`,
    )
    assert.equal(bench.truePositives + bench.falseNegatives, bench.positives)
    for (const kind of [
      'pipeline',
      'pipeline_spelling',
      'pipeline_timestamp',
      'identifier',
      'two_dates',
      'compact_number',
      'count',
    ]) {
      const row = bench.byKind.find((entry) => entry.kind === kind)
      assert.ok(row !== undefined && row.agreed === row.pairs, `${kind}: ${JSON.stringify(row)}`)
    }
  })
})
