/**
 * The concept lexicon for software work: every concept checked in both directions (its English words bridge to a
 * fact holding only its Chinese ones, and the reverse), the data kept free of members that stemming or stopwords
 * turn into a word of another concept or into an everyday word, the Chinese members taken from CC-CEDICT checked
 * against the dictionary, and the bridge through a real store (one SQLite binding): a query's concept finds a
 * fact in the other language, ranked below a fact that holds the query's own words.
 */
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { afterEach, describe, it } from 'node:test'
import { CEDICT_MEMBERS, CONCEPT_GROUPS, LEXICON_VERSION } from '../src/lexicon/concepts.data.ts'
import { bridgedMembers, conceptsOf, findConcepts, lexiconTerms, SOFTWARE_LEXICON } from '../src/lexicon/lexicon.ts'
import { relevanceOf, weighMessage } from '../src/recall/relevance.ts'
import { questionTerms } from '../src/text/tokenize.ts'
import { FakeClock } from './helpers/fake-clock.ts'
import { ONE_DRIVER, openMemory, writeFact, type MemoryHandle } from './helpers/store.ts'

/** Members meant to stand in two concepts: a schema change is made by a migration. */
const SHARED_ON_PURPOSE = new Set(['schema chang', 'alter tabl', 'add column'])

/** How a message's relevance to a fact reads when every term is held by one fact of a hundred. */
function bridged(message: string, fact: string): number {
  const terms = questionTerms(message, 32)
  return relevanceOf(weighMessage(terms, new Map(terms.map((term) => [term, 1])), 100, message), [fact])
}

describe('the concept lexicon', () => {
  it('has several hundred concepts, each with English and Chinese members, under a dated version', () => {
    assert.ok(CONCEPT_GROUPS.length >= 300, `${CONCEPT_GROUPS.length} concepts`)
    assert.match(LEXICON_VERSION, /^\d{4}-\d{2}-\d{2}\.\d+$/u)
    assert.equal(new Set(CONCEPT_GROUPS.map((group) => group.id)).size, CONCEPT_GROUPS.length, 'concept ids are unique')
    for (const group of CONCEPT_GROUPS) {
      assert.ok(
        group.en.some((member) => lexiconTerms(member).length > 0),
        `${group.id} has an English member`,
      )
      assert.ok(
        group.zh.some((member) => /\p{Script=Han}/u.test(member) && lexiconTerms(member).length > 0),
        `${group.id} has a Chinese member`,
      )
    }
  })

  describe('every concept bridges both ways', () => {
    for (const group of CONCEPT_GROUPS) {
      it(`${group.id}: "${group.en[0] ?? ''}" ⇄ "${group.zh.find((member) => /\p{Script=Han}/u.test(member)) ?? ''}"`, () => {
        const english = group.en.find((member) => lexiconTerms(member).length > 0) ?? ''
        const chinese =
          group.zh.find((member) => /\p{Script=Han}/u.test(member) && lexiconTerms(member).length > 0) ?? ''
        assert.ok(conceptsOf(SOFTWARE_LEXICON, english).has(group.id), `"${english}" holds ${group.id}`)
        assert.ok(conceptsOf(SOFTWARE_LEXICON, chinese).has(group.id), `"${chinese}" holds ${group.id}`)
        assert.ok(bridged(english, `a fact about ${chinese}`) > 0, `"${english}" reaches a fact about "${chinese}"`)
        assert.ok(bridged(chinese, `a fact about ${english}`) > 0, `"${chinese}" reaches a fact about "${english}"`)
        const search = bridgedMembers(SOFTWARE_LEXICON, [group.id], new Set(lexiconTerms(english)), 64).map(
          (member) => member.text,
        )
        assert.ok(search.includes(chinese), `a search for "${english}" also looks for "${chinese}"`)
      })
    }
  })

  it('lets no member stand for two concepts by stemming, except on purpose', () => {
    const owners = new Map<string, Set<string>>()
    for (const [concept, members] of SOFTWARE_LEXICON.members) {
      for (const member of members) {
        const key = member.terms.join(' ')
        owners.set(key, new Set([...(owners.get(key) ?? []), concept]))
      }
    }
    const shared = [...owners]
      .filter(([key, concepts]) => concepts.size > 1 && !SHARED_ON_PURPOSE.has(key))
      .map(([key, concepts]) => `${key}: ${[...concepts].join(', ')}`)
    assert.deepEqual(shared, [])
  })

  it('keeps no phrase that stopwords shrink to one word ("log in" would bridge every log)', () => {
    const shrunk: string[] = []
    for (const group of CONCEPT_GROUPS) {
      for (const member of group.en) {
        const words = member.split(/[\s]+/u).filter((word) => word !== '')
        if (words.length > 1 && lexiconTerms(member).length === 1) shrunk.push(`${group.id}: ${member}`)
      }
    }
    assert.deepEqual(shrunk, [])
  })

  it('holds no everyday word that would bridge a message about life to software', () => {
    for (const everyday of [
      'memory',
      'performance',
      'class',
      'jobs',
      'style',
      'react',
      'table',
      'host',
      'team',
      'meeting',
      'ticket',
      'plan',
      'order',
      'history',
    ]) {
      const members = [...SOFTWARE_LEXICON.members.values()].flat().filter((member) => member.text === everyday)
      assert.deepEqual(
        members.map((member) => member.concept),
        [],
        everyday,
      )
    }
  })

  it('finds a member inside a longer text, in order, whatever its inflection; a Chinese one inside a sentence', () => {
    assert.deepEqual(
      [...new Set(findConcepts(SOFTWARE_LEXICON, lexiconTerms('Please run the tests now')).map((hit) => hit.concept))],
      ['test'],
    )
    assert.ok(conceptsOf(SOFTWARE_LEXICON, '帮我跑一下测试').has('test'))
    assert.ok(conceptsOf(SOFTWARE_LEXICON, 'Which Postgres instance do I point psql at?').has('database'))
    assert.ok(!conceptsOf(SOFTWARE_LEXICON, 'tests run').has('start-server'), 'a phrase matches in its order only')
  })

  it("takes from CC-CEDICT only headwords it defines as their concept's own member", () => {
    const require = createRequire(import.meta.url)
    const text = String(require('chinese-lexicon/dictionary/cedict.js'))
    const definitions = new Map<string, string[]>()
    for (const line of text.split('\n')) {
      const entry = /^\S+ (\S+) \[[^\]]*\] \/(.*)\/$/u.exec(line)
      if (entry === null) continue
      const glosses = (entry[2] ?? '').split('/').map((gloss) =>
        gloss
          .toLowerCase()
          .replace(/^to /u, '')
          .replace(/\s*\(.*?\)\s*/gu, ' ')
          .trim(),
      )
      definitions.set(entry[1] ?? '', [...(definitions.get(entry[1] ?? '') ?? []), ...glosses])
    }
    for (const [concept, member, english] of CEDICT_MEMBERS) {
      assert.ok(definitions.get(member)?.includes(english), `CC-CEDICT defines ${member} as "${english}"`)
      const group = CONCEPT_GROUPS.find((entry) => entry.id === concept)
      assert.ok(group?.en.includes(english), `"${english}" is an English member of ${concept}`)
      assert.ok(group?.zh.includes(member), `${member} is a Chinese member of ${concept}`)
    }
  })
})

for (const driver of ONE_DRIVER) {
  describe(`the bridge through a real store (${driver})`, () => {
    let m: MemoryHandle
    afterEach(() => {
      m.dispose()
    })

    it("a query's concept finds a fact in the other language, below a fact holding the query's own words, and says so", async () => {
      m = openMemory(driver, new FakeClock())
      writeFact(m.memory, m.config, { subject: 'billing-api', property: '数据库', value: 'Postgres 16，端口 5433' })
      writeFact(m.memory, m.config, { subject: 'ledger', property: 'database', value: 'SQLite on the shared volume' })
      writeFact(m.memory, m.config, { subject: 'user', property: 'favorite drink', value: 'latte' })
      const answer = await m.memory.search({ query: 'which database', limit: 5, asOf: undefined }, m.config)
      assert.equal(answer.outcome, 'ok')
      assert.deepEqual(
        answer.results.map((result) => result.subject),
        ['ledger', 'billing-api'],
      )
      assert.ok(answer.channels.includes('bridge'))
      const chinese = await m.memory.search({ query: '单测怎么跑', limit: 5, asOf: undefined }, m.config)
      assert.equal(chinese.outcome, 'not_found', 'no fact holds a test concept')
      writeFact(m.memory, m.config, { subject: 'billing-api', property: 'test command', value: 'npm run test:unit' })
      const found = await m.memory.search({ query: '单测怎么跑', limit: 5, asOf: undefined }, m.config)
      assert.deepEqual(
        found.results.map((result) => `${result.subject} · ${result.property}`),
        ['billing-api · test command'],
      )
    })
  })
}
