/**
 * The near-duplicate gate's pure core (src/rules/near-duplicate.ts) in table cases, Chinese and English: the
 * IDF weight, the cosine over the compared tokens, the rare-token veto, the negation veto, the three-shared-token floor, the one-word
 * exchange rule, the fields left out when both sides agree on them, and findRestatement's 12-fact floor, best match
 * and frequencies.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  findRestatement,
  inverseDocumentFrequency,
  NEAR_DUPLICATE_COSINE,
  NEAR_DUPLICATE_MIN_FACTS,
  NEAR_DUPLICATE_MIN_SHARED,
  scorePair,
  termStatistics,
  type Library,
  type PairVerdict,
  type Statement,
  type TermStatistics,
} from '../src/rules/near-duplicate.ts'

/** No token is held by any fact: every token weighs the same, so a cosine is shared / √(|a|·|b|). */
const EVEN: TermStatistics = { documents: 100, frequency: new Map() }

const of = (value: string, subject = 'user', property = 'notes'): Statement => ({ subject, property, value })

function assertScore(a: Statement, b: Statement, stats: TermStatistics, verdict: PairVerdict, cosine?: number): void {
  const score = scorePair(a, b, stats)
  assert.equal(score.verdict, verdict, `${a.value} / ${b.value}: ${JSON.stringify(score)}`)
  if (cosine !== undefined)
    assert.ok(
      Math.abs(score.cosine - cosine) < 0.001,
      `${a.value} / ${b.value}: cosine ${score.cosine}, expected ${cosine}`,
    )
}

describe('the numbers of the gate', () => {
  it("are the seed's: 0.72, three shared tokens, twelve current facts", () => {
    assert.deepEqual([NEAR_DUPLICATE_COSINE, NEAR_DUPLICATE_MIN_SHARED, NEAR_DUPLICATE_MIN_FACTS], [0.72, 3, 12])
  })
})

describe('inverseDocumentFrequency', () => {
  const cases: readonly (readonly [df: number, n: number, weight: number])[] = [
    [0, 100, Math.log(1 + 100.5 / 0.5)],
    [1, 100, Math.log(1 + 99.5 / 1.5)],
    [50, 100, Math.log(2)],
    [100, 100, Math.log(1 + 0.5 / 100.5)],
    [250, 100, Math.log(1 + 0.5 / 100.5)],
    [-3, 100, Math.log(1 + 100.5 / 0.5)],
  ]
  for (const [df, n, weight] of cases) {
    it(`weighs a token held by ${df} of ${n} facts ${weight.toFixed(4)}`, () => {
      assert.ok(Math.abs(inverseDocumentFrequency(df, n) - weight) < 1e-9)
    })
  }

  it('is heavier for rarer tokens and stays above zero for a token every fact holds', () => {
    assert.ok(inverseDocumentFrequency(1, 1000) > inverseDocumentFrequency(10, 1000))
    assert.ok(inverseDocumentFrequency(1000, 1000) > 0)
  })
})

describe('scorePair: the cosine', () => {
  it('scores one set of words in another order 1 and a word more below 1, in English', () => {
    assertScore(
      of('walks the dog every morning before work'),
      of('every morning before work, walks the dog'),
      EVEN,
      'restates',
      1,
    )
    // read scienc fiction novel befor go sleep / read scienc fiction befor go sleep: 6 shared of 7 and 6.
    assertScore(
      of('reads science fiction novels before going to sleep'),
      of('reads science fiction before going to sleep'),
      EVEN,
      'restates',
      6 / Math.sqrt(42),
    )
  })

  it('compares words in the form the index holds them: inflections are one token', () => {
    // new depend need approv tech lead / ad new depend need tech lead approv: 6 shared of 6 and 7.
    assertScore(
      of('new dependencies need approval from the tech lead'),
      of('adding new dependencies needs the tech lead approval'),
      EVEN,
      'restates',
      6 / Math.sqrt(42),
    )
  })

  it('scores Chinese by its bigrams: 8 of 9 and 10 pass, 6 of 8 and 9 do not', () => {
    assertScore(of('每天晚饭后散步半小时'), of('每天晚饭后都散步半小时'), EVEN, 'restates', 8 / Math.sqrt(90))
    assertScore(
      of('两周一个迭代，周三开始'),
      of('每个迭代两周，从周三开始'),
      EVEN,
      'below_threshold',
      6 / Math.sqrt(72),
    )
  })

  it('lets the document frequencies decide: an added word no fact holds outweighs three that most facts hold', () => {
    const a = of('alpha beta gamma delta')
    const b = of('alpha beta gamma')
    assertScore(a, b, EVEN, 'restates', 3 / Math.sqrt(12))
    const common = termStatistics(
      100,
      new Map([
        ['alpha', 90],
        ['beta', 90],
        ['gamma', 90],
        ['delta', 0],
      ]),
    )
    const commonWeight = inverseDocumentFrequency(90, 100) ** 2
    const rareWeight = inverseDocumentFrequency(0, 100) ** 2
    assertScore(
      a,
      b,
      common,
      'below_threshold',
      (3 * commonWeight) / Math.sqrt((3 * commonWeight + rareWeight) * 3 * commonWeight),
    )
  })

  it('keys the frequencies a store reports for written words by their indexed form', () => {
    const stats = termStatistics(
      10,
      new Map([
        ['approvals', 4],
        ['端口', 2],
      ]),
    )
    assert.deepEqual(
      [...stats.frequency],
      [
        ['approv', 4],
        ['端口', 2],
      ],
    )
  })
})

describe('scorePair: the rare-token veto', () => {
  const cases: readonly (readonly [a: string, b: string, verdict: PairVerdict, why: string])[] = [
    ['port 7801 for public HTTP traffic', 'port 7802 for public HTTP traffic', 'vetoed', 'a port'],
    [
      'bge-m3 served by the local inference box',
      'bge-large served by the local inference box',
      'vetoed',
      'a model name with a digit',
    ],
    [
      'REST API v3 with JSON responses and cursor pagination',
      'REST API v4 with JSON responses and cursor pagination',
      'vetoed',
      'a version',
    ],
    [
      'uses bge-large for the reranking experiments',
      'uses bge-small for the reranking experiments',
      'vetoed',
      'two letter names in one place',
    ],
    [
      '3 replicas in the primary region behind the balancer',
      '4 replicas in the primary region behind the balancer',
      'vetoed',
      'a lone digit',
    ],
    [
      'backup on 2026-03-05 finished in 41 minutes',
      'backup on 2026-03-06 finished in 41 minutes',
      'vetoed',
      'the day of a date',
    ],
    ['支付服务对外暴露 7801 端口处理回调', '支付服务对外暴露 7802 端口处理回调', 'vetoed', 'a port inside Chinese'],
    [
      'CPU 使用率超过 80% 持续 5 分钟就告警',
      'CPU 使用率超过 90% 持续 5 分钟就告警',
      'vetoed',
      'a percentage inside Chinese',
    ],
    ['Node v22 on the Linux build runners', 'the Linux build runners use Node 22', 'restates', 'v22 and 22 agree'],
    [
      'dark-mode in the editor and the terminal',
      'dark mode in the editor and the terminal',
      'restates',
      'a hyphenated name written as words',
    ],
    [
      'prefers window seats on long flights',
      'prefers window seats on long-haul flights',
      'restates',
      'an English compound on one side only',
    ],
  ]
  for (const [a, b, verdict, why] of cases) {
    it(`${verdict === 'vetoed' ? 'keeps apart' : 'lets through'} "${a}" / "${b}" (${why})`, () => {
      assertScore(of(a), of(b), EVEN, verdict)
    })
  }

  it('names the identifiers that only one side carries', () => {
    assert.deepEqual(
      scorePair(of('port 7801 for public HTTP traffic'), of('port 7802 for public HTTP traffic'), EVEN).apart,
      ['7801', '7802'],
    )
  })

  it('leaves a difference between Chinese words to the cosine', () => {
    const a = of('在北京的一家互联网公司工作了三年')
    const b = of('在上海的一家互联网公司工作了三年')
    assertScore(a, b, EVEN, 'restates', 12 / 15)
    const cities = termStatistics(
      100,
      new Map([
        ['在北', 0],
        ['北京', 0],
        ['京的', 0],
        ['在上', 0],
        ['上海', 0],
        ['海的', 0],
        ...['的一', '一家', '家互', '互联', '联网', '网公', '公司', '司工', '工作', '作了', '了三', '三年'].map(
          (bigram) => [bigram, 40] as [string, number],
        ),
      ]),
    )
    assertScore(a, b, cities, 'below_threshold')
  })
})

describe('scorePair: the negation veto', () => {
  const cases: readonly (readonly [a: string, b: string, verdict: PairVerdict, why: string])[] = [
    [
      'does not want meetings scheduled before ten in the morning',
      'wants meetings scheduled before ten in the morning',
      'vetoed',
      '"not" on one side, a stopword in the index',
    ],
    [
      "doesn't like meetings scheduled before ten in the morning",
      'likes meetings scheduled before ten in the morning',
      'vetoed',
      'a contraction',
    ],
    [
      'dont take meetings scheduled before ten in the morning',
      'take meetings scheduled before ten in the morning',
      'vetoed',
      'a contraction written without its apostrophe',
    ],
    [
      'never drinks coffee after four in the afternoon',
      'drinks coffee after four in the afternoon',
      'vetoed',
      '"never"',
    ],
    ['travels for work without the company laptop', 'travels for work with the company laptop', 'vetoed', '"without"'],
    ['不想在早上十点前安排会议', '想在早上十点前安排会议', 'vetoed', '不 on one side'],
    ['周末没有时间处理工作邮件', '周末有时间处理工作邮件', 'vetoed', '没 on one side'],
    [
      'does not want meetings scheduled before ten in the morning',
      "doesn't want meetings scheduled before ten in the morning",
      'restates',
      'both sides negated',
    ],
    ['不想在早上十点前安排会议', '不想在上午十点前安排会议', 'restates', 'both sides negated in Chinese'],
  ]
  for (const [a, b, verdict, why] of cases) {
    it(`${verdict === 'vetoed' ? 'keeps apart' : 'lets through'} "${a}" / "${b}" (${why})`, () => {
      assertScore(of(a), of(b), EVEN, verdict)
    })
  }

  const commonWords: readonly (readonly [a: string, b: string, why: string])[] = [
    ['觉得这个方案非常适合团队协作的场景', '觉得这个方案适合团队协作的场景', '非常 is "very"'],
    ['无论多忙每天都要跑步半小时', '每天都要跑步半小时', '无论 is "regardless"'],
    ['周末想去爬山，不过要看天气', '周末想去爬山，要看天气', '不过 is "but"'],
    ['经常帮别人检查代码的提交', '经常帮同事检查代码的提交', '别人 is "others"'],
  ]
  for (const [a, b, why] of commonWords) {
    it(`does not read a negation into "${a}" (${why})`, () => {
      assert.notEqual(scorePair(of(a), of(b), EVEN).verdict, 'vetoed')
    })
  }

  it('names the negation that only one side carries', () => {
    assert.deepEqual(
      scorePair(
        of('does not want meetings scheduled before ten in the morning'),
        of('wants meetings scheduled before ten in the morning'),
        EVEN,
      ).apart,
      ['not'],
    )
  })
})

describe('scorePair: three shared tokens', () => {
  it('keeps apart short values however high their cosine', () => {
    assertScore(of('green tea latte'), of('green tea'), EVEN, 'too_few_shared')
    assert.ok(scorePair(of('green tea latte'), of('green tea'), EVEN).cosine > NEAR_DUPLICATE_COSINE)
    assertScore(of('喝绿茶拿铁'), of('喝绿茶'), EVEN, 'too_few_shared')
  })

  it('lets three shared tokens through', () => {
    assertScore(of('bakes sourdough bread'), of('sourdough bread, bakes it'), EVEN, 'restates', 1)
    assertScore(of('不吃香菜'), of('不吃香菜和葱'), EVEN, 'restates', 3 / Math.sqrt(15))
  })
})

describe('scorePair: one word exchanged', () => {
  it('keeps apart one sentence with one word exchanged, however high the cosine', () => {
    const score = scorePair(
      of('plays the piano, mostly jazz standards'),
      of('plays the guitar, mostly jazz standards'),
      EVEN,
    )
    assert.equal(score.verdict, 'exchanged')
    assert.deepEqual(score.apart, ['piano', 'guitar'])
    assert.ok(Math.abs(score.cosine - 0.8) < 0.001)
    assertScore(
      of('visited Kyoto in spring with the whole family'),
      of('visited Osaka in spring with the whole family'),
      EVEN,
      'exchanged',
    )
    assertScore(of('写脚本用 Python'), of('写脚本用 Go'), EVEN, 'exchanged')
  })

  it('pays for it with synonyms: a word swapped for its synonym is kept apart too', () => {
    assertScore(of('keeps a personal wiki in Obsidian'), of('maintains a personal wiki in Obsidian'), EVEN, 'exchanged')
  })

  it('leaves Chinese to the cosine even where one bigram stands for another', () => {
    assertScore(of('最近在读《三体》第二部'), of('最近在看《三体》第二部'), EVEN, 'restates')
  })
})

describe('scorePair: fields both sides agree on', () => {
  it('compares only the values inside one slot, so a shared subject and property are no evidence', () => {
    const score = scorePair(
      of('English fluently', 'user', 'languages spoken'),
      of('French fluently', 'user', 'Languages_Spoken'),
      EVEN,
    )
    assert.deepEqual(score.compared, ['value'])
    assert.equal(score.verdict, 'too_few_shared')
  })

  it("compares the property too when the properties differ (the review's case; the write gate stays in one slot)", () => {
    // favourit drink green tea jasmin flower / drink green tea jasmin flower: 5 shared of 6 and 5.
    const across = scorePair(
      of('green tea with jasmine flowers', 'user', 'favourite drink'),
      of('green tea with jasmine flowers', 'user', 'drinks'),
      EVEN,
    )
    assert.deepEqual(across.compared, ['property', 'value'])
    assert.ok(Math.abs(across.cosine - 5 / Math.sqrt(30)) < 0.001)
    const entities = scorePair(
      of('the payments team', 'DSH Fact Memory', 'owner'),
      of('the payments team', 'dsh-fact-memory plugin', 'owner'),
      EVEN,
    )
    assert.deepEqual(entities.compared, ['value'])
  })
})

describe('findRestatement', () => {
  const rows = [
    { id: 3, statement: of('plays the piano, mostly jazz standards', 'user', 'hobbies') },
    { id: 5, statement: of('walks the dog every morning before work', 'user', 'hobbies') },
    { id: 8, statement: of('every morning before work, walks the dog', 'user', 'hobbies') },
  ]
  const library = (currentFacts: number, asked: string[][] = []): Library => ({
    currentFacts,
    statistics: (words) => {
      asked.push([...words])
      return { documents: 40, frequency: new Map() }
    },
  })

  it('is off below 12 current facts, even for the same words in another order', () => {
    const candidate = of('walks the dog before work every morning', 'user', 'hobbies')
    assert.equal(findRestatement(candidate, rows, library(11)), undefined)
    assert.equal(findRestatement(candidate, rows, library(12))?.id, 5)
  })

  it('answers with the best match, the earliest row on a tie, and asks for frequencies once', () => {
    const asked: string[][] = []
    const match = findRestatement(
      of('walks the dog before work every morning', 'user', 'hobbies'),
      rows,
      library(30, asked),
    )
    assert.equal(match?.id, 5)
    assert.equal(match?.score.verdict, 'restates')
    assert.equal(asked.length, 1)
  })

  it('does not ask the store anything when no row survives the veto, the shared-token floor and the exchange rule', () => {
    const asked: string[][] = []
    assert.equal(
      findRestatement(
        of('plays the guitar, mostly jazz standards', 'user', 'hobbies'),
        rows.slice(0, 1),
        library(30, asked),
      ),
      undefined,
    )
    assert.equal(findRestatement(of('port 7801', 'user', 'hobbies'), rows, library(30, asked)), undefined)
    assert.deepEqual(asked, [])
  })

  it('counts the candidate as one more fact holding each of its words', () => {
    const candidate = of('plays jazz standards on the grand piano, mostly', 'user', 'hobbies')
    const stored = (words: readonly string[]): Map<string, number> =>
      new Map(words.map((word) => [word, word === 'grand' ? 0 : 2]))
    const found = findRestatement(candidate, rows.slice(0, 1), {
      currentFacts: 30,
      statistics: (words) => ({ documents: 30, frequency: stored(words) }),
    })
    const asIfWritten = scorePair(candidate, rows[0]?.statement ?? of(''), {
      documents: 31,
      frequency: new Map([
        ['plai', 3],
        ['jazz', 3],
        ['standard', 3],
        ['piano', 3],
        ['mostli', 3],
        ['grand', 1],
      ]),
    })
    const asStored = scorePair(candidate, rows[0]?.statement ?? of(''), {
      documents: 30,
      frequency: termStatistics(30, stored(['plays', 'jazz', 'standards', 'piano', 'mostly', 'grand'])).frequency,
    })
    assert.ok(found !== undefined && Math.abs(found.score.cosine - asIfWritten.cosine) < 1e-9, JSON.stringify(found))
    assert.ok(Math.abs(asIfWritten.cosine - asStored.cosine) > 0.001, 'the adjustment changes the score')
  })
})
