/**
 * The pure cores of the library's review: the keeper rule of a merge, the sweep's budget and subject interleaving,
 * the closed question and its answer parser, and the health check's classifiers (self-restating facts, split
 * subjects), with table cases in English and Chinese.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  datedPipelines,
  restatesProperty,
  splitSubjects,
  type AuditFact,
  type PipelineFact,
} from '../src/review/audit-classes.ts'
import { chooseKeeper, type KeeperCandidate } from '../src/rules/keeper.ts'
import { planSweep, sweepBudget, type SweepCandidate } from '../src/review/sweep-plan.ts'
import { parseVerdict } from '../src/review/verdict.schema.ts'
import { verdictMessages } from '../src/review/verdict-prompt.ts'
import { decideRun, FIRST_LOOK_MS, LOOK_EVERY_MS } from '../src/review/schedule.ts'

const fact = (id: number, evidence: KeeperCandidate['evidence'], firstObservedAt: string): KeeperCandidate => ({
  id,
  evidence,
  firstObservedAt,
})

describe('chooseKeeper', () => {
  const cases: readonly [string, KeeperCandidate, KeeperCandidate, number][] = [
    [
      'the stronger evidence wins over an earlier observation',
      fact(1, 'observed', '2026-01-01T00:00:00.000Z'),
      fact(2, 'explicit_user', '2026-02-01T00:00:00.000Z'),
      2,
    ],
    [
      'with equal evidence the earlier first observation wins',
      fact(5, 'observed', '2026-02-01T00:00:00.000Z'),
      fact(9, 'observed', '2026-01-01T00:00:00.000Z'),
      9,
    ],
    [
      'with equal evidence and time the lower id wins',
      fact(7, 'confirmed_user', '2026-01-01T00:00:00.000Z'),
      fact(3, 'confirmed_user', '2026-01-01T00:00:00.000Z'),
      3,
    ],
    [
      'confirmed_user outranks observed',
      fact(4, 'observed', '2025-01-01T00:00:00.000Z'),
      fact(8, 'confirmed_user', '2026-01-01T00:00:00.000Z'),
      8,
    ],
  ]
  for (const [name, a, b, keeper] of cases) {
    it(name, () => {
      assert.equal(chooseKeeper(a, b).keeper.id, keeper)
      assert.equal(chooseKeeper(b, a).keeper.id, keeper, 'the order the pair is given in does not matter')
      assert.equal(chooseKeeper(a, b).loser.id, a.id === keeper ? b.id : a.id)
    })
  }
})

describe('planSweep', () => {
  const pair = (subject: string, n: number, score = 1): SweepCandidate => ({
    subject,
    pairKey: `${subject}:${n}`,
    score,
  })

  it('takes one pair from each subject in turn, so one busy subject cannot take the whole budget', () => {
    const nightly = Array.from({ length: 20 }, (_, n) => pair('backup job', n))
    const plan = planSweep([...nightly, pair('billing api', 1), pair('用户', 1)], new Set(), 4)
    assert.deepEqual(
      plan.map((entry) => entry.subject),
      ['backup job', 'billing api', '用户', 'backup job'],
    )
  })

  it('asks about the best-scored pairs of a subject first', () => {
    const plan = planSweep([pair('s', 1, 0.75), pair('s', 2, 0.9), pair('s', 3, 0.8)], new Set(), 2)
    assert.deepEqual(
      plan.map((entry) => entry.pairKey),
      ['s:2', 's:3'],
    )
  })

  it('skips pairs already judged distinct, so an unchanged library costs no call', () => {
    const candidates = [pair('s', 1), pair('s', 2)]
    assert.deepEqual(planSweep(candidates, new Set(['s:1', 's:2']), 8), [])
    assert.deepEqual(
      planSweep(candidates, new Set(['s:1']), 8).map((entry) => entry.pairKey),
      ['s:2'],
    )
  })

  it('never plans more than the budget, nor a pair twice', () => {
    const candidates = [pair('a', 1), pair('a', 1), pair('b', 1), pair('c', 1)]
    assert.deepEqual(
      planSweep(candidates, new Set(), 8).map((entry) => entry.pairKey),
      ['a:1', 'b:1', 'c:1'],
    )
    assert.equal(planSweep(candidates, new Set(), 0).length, 0)
  })

  it('gives a sweep a person asked for triple the budget', () => {
    assert.equal(sweepBudget(8, false), 8)
    assert.equal(sweepBudget(8, true), 24)
    assert.equal(sweepBudget(-1, true), 0)
  })
})

describe('the closed question', () => {
  it('shows the two statements as text, without ids', () => {
    const messages = verdictMessages(
      { subject: 'billing-api', property: 'port', value: '7801' },
      { subject: 'billing-api', property: 'port', value: 'runs on\n7801' },
    )
    assert.equal(messages.user, 'Statement A: billing-api · port: 7801\nStatement B: billing-api · port: runs on 7801')
    assert.doesNotMatch(`${messages.system}\n${messages.user}`, /#\d|\bid\b/u)
    assert.match(messages.system, /"same".*"distinct".*"unsure"/su)
  })

  it('reads exactly one verdict, fenced or not, and nothing else', () => {
    const table: readonly [string, string | undefined][] = [
      ['{"verdict": "same"}', 'same'],
      [' {"verdict":"distinct"} ', 'distinct'],
      ['```json\n{"verdict": "unsure"}\n```', 'unsure'],
      ['{"verdict": "Same"}', undefined],
      ['{"verdict": "same", "keep": 12}', undefined],
      ['I think {"verdict": "same"}', undefined],
      ['same', undefined],
      ['', undefined],
      ['{"verdict": ["same"]}', undefined],
    ]
    for (const [text, expected] of table) assert.equal(parseVerdict(text), expected, JSON.stringify(text))
  })
})

describe('restatesProperty', () => {
  const table: readonly [string, string, boolean][] = [
    ['error message', 'failed with an error message', true],
    ['status', 'the status', true],
    ['error messages', 'error message', true],
    ['错误信息', '出现错误信息', true],
    ['error message', 'disk full on /var', false],
    ['status', 'ok', false],
    ['port', '7801', false],
    ['端口', '7801', false],
    ['错误信息', '磁盘已满', false],
    ['owner', '', false],
  ]
  for (const [property, value, expected] of table) {
    it(`${expected ? 'finds' : 'does not find'} "${property}: ${value}" restating its property`, () => {
      assert.equal(restatesProperty({ property, value }), expected)
    })
  }
})

describe('datedPipelines', () => {
  const run = (
    id: number,
    property: string,
    entityKey = 'nightly backup',
    scope = 'global',
    observedAt = `2026-03-${String(id).padStart(2, '0')}T02:00:00.000Z`,
  ): PipelineFact => ({ id, entityKey, property, value: 'ok', scope, observedAt })
  const TODAY = '2026-12-01'
  const table: readonly [string, readonly PipelineFact[], readonly { survivor: number; runs: readonly number[] }[]][] =
    [
      [
        'a date leading the property name',
        [run(1, '2026-02-08 result'), run(2, '2026-02-09 result'), run(3, '2026-02-10 result')],
        [{ survivor: 3, runs: [1, 2] }],
      ],
      [
        'a date inside the property name, in two spellings',
        [run(1, 'backup 2026-11-20 status'), run(2, 'backup 2026/11/21 status'), run(3, 'backup 21 Nov 2026 status')],
        [{ survivor: 3, runs: [1] }],
      ],
      [
        'Chinese property names',
        [run(1, '2026年2月8日 备份结果'), run(2, '2026年2月9日 备份结果'), run(3, '2026年2月9日 构建结果')],
        [{ survivor: 2, runs: [1] }],
      ],
      [
        'the newest day survives whatever the ids',
        [run(5, '2026-02-10 result'), run(6, '2026-02-08 result')],
        [{ survivor: 5, runs: [6] }],
      ],
      [
        'one day only is not a pipeline',
        [run(1, '2026-02-08 result'), run(2, '2026-02-08 result', 'nightly backup', 'work')],
        [],
      ],
      [
        'another subject is another pipeline',
        [run(1, '2026-02-08 result'), run(2, '2026-02-09 result', 'billing api')],
        [],
      ],
      [
        'another scope is another pipeline',
        [run(1, '2026-02-08 result'), run(2, '2026-02-09 result', 'nightly backup', 'work')],
        [],
      ],
      [
        'three letters beside the date, counted with the subject as the line they make ("db-backup · 2026-11-05 run")',
        [
          run(1, '2026-11-05 run', 'db-backup'),
          run(2, '2026-11-06 run', 'db-backup'),
          run(3, '2026-11-07 run', 'db-backup'),
        ],
        [{ survivor: 3, runs: [1, 2] }],
      ],
      [
        'a property without a date, with two dates or too little text besides it is left alone',
        [
          run(1, 'result'),
          run(2, 'from 2026-01-01 to 2026-02-01'),
          run(3, '2026-02-08 ok', 'x'),
          run(4, '2026-02-09 ok', 'x'),
          run(5, 'build 20260208 log'),
          run(6, 'build 20260209 log'),
          run(7, 'port 7801'),
          run(8, 'port 7802'),
          run(9, '187'),
          run(10, '188'),
        ],
        [],
      ],
      [
        'a property that is nothing but its date names no recurring line, whatever the subject',
        [run(1, '2026-02-08', 'release plan'), run(2, '2026-02-09', 'release plan')],
        [],
      ],
      [
        'a property dated past tomorrow is a plan, not a run',
        [run(1, '2026-11-30 result'), run(2, '2027-01-05 result')],
        [],
      ],
    ]
  for (const [name, facts, expected] of table) {
    it(`${name}`, () => {
      assert.deepEqual(
        datedPipelines(facts, TODAY).map(({ survivor, runs }) => ({ survivor, runs })),
        expected,
      )
    })
  }

  it('leaves a second run of the newest day alone and names what the runs share', () => {
    const found = datedPipelines(
      [run(1, '2026-02-08 result'), run(2, '2026-02-09 result'), run(3, '2026-02-09 result')],
      TODAY,
    )
    assert.deepEqual(found, [{ survivor: 3, runs: [1], template: '{date} result' }])
  })
})

describe('splitSubjects', () => {
  const row = (id: number, entityKey: string, property: string, value: string): AuditFact => ({
    id,
    entityKey,
    property,
    value,
  })

  it('takes two spellings of one name for one subject, the one with more facts as canonical', () => {
    const found = splitSubjects([
      row(1, 'fact memory', 'language', 'TypeScript'),
      row(2, 'fact memory', 'store', 'SQLite'),
      row(3, 'factmemory', 'license', 'MIT'),
    ])
    assert.deepEqual(found, [{ fragment: 'factmemory', canonical: 'fact memory', factIds: [3], reason: 'spelling' }])
  })

  it('takes a fragment for its longer name when they hold an identical fact, and not otherwise', () => {
    const found = splitSubjects([
      row(1, 'billing api', 'port', '7801'),
      row(2, 'billing', 'port', '7801'),
      row(3, 'billing', 'owner', 'Ana'),
      row(4, 'payments', 'port', '9000'),
      row(5, 'payments gateway', 'port', '9100'),
    ])
    assert.deepEqual(found, [{ fragment: 'billing', canonical: 'billing api', factIds: [2, 3], reason: 'fragment' }])
  })

  it('leaves unrelated subjects and Chinese names that only share characters alone', () => {
    assert.deepEqual(
      splitSubjects([
        row(1, '支付', '端口', '7801'),
        row(2, '支付网关', '端口', '7900'),
        row(3, 'api', 'port', '1'),
        row(4, 'apis', 'port', '1'),
      ]),
      [],
    )
  })
})

describe('decideRun', () => {
  const on = { enabled: true, intervalMs: 21_600_000 }
  it('runs at the first look after loading, then when the interval has passed since the last run', () => {
    assert.equal(FIRST_LOOK_MS, 120_000)
    assert.equal(LOOK_EVERY_MS, 60_000)
    assert.deepEqual(decideRun(on, undefined, 120_000, false, false), { run: true, reason: 'first' })
    assert.deepEqual(decideRun(on, 120_000, 120_000 + 21_599_999, false, false), { run: false, reason: 'not_due' })
    assert.deepEqual(decideRun(on, 120_000, 120_000 + 21_600_000, false, false), { run: true, reason: 'interval' })
  })

  it('keeps an interval of 0 to the button and the route, and a switched-off feature to nothing', () => {
    assert.deepEqual(decideRun({ enabled: true, intervalMs: 0 }, undefined, 120_000, false, false), {
      run: false,
      reason: 'manual_only',
    })
    assert.deepEqual(decideRun({ enabled: true, intervalMs: 0 }, undefined, 120_000, false, true), {
      run: true,
      reason: 'asked',
    })
    assert.deepEqual(decideRun({ enabled: false, intervalMs: 60_000 }, undefined, 120_000, false, true), {
      run: false,
      reason: 'disabled',
    })
  })

  it('never starts a run while one is under way', () => {
    assert.deepEqual(decideRun(on, undefined, 120_000, true, true), { run: false, reason: 'running' })
  })
})
